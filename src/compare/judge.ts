/**
 * Turns what both sides answered into rule results: one rule per request
 * condition (what a replay, an unknown reference, invalid input … is answered
 * with), the answers' JSON shapes per step kind, rules on the orders' lives (which finals, how many fail, how long
 * pending lasts) and, when both sides' webhooks were received, the webhook
 * rules. Every rule is judged by one of the tests in rules.ts.
 */
import type { SideObservations } from "./observe.ts";
import type { StepKind } from "./plan.ts";
import {
  type AnswerEvidence,
  compareAnswers,
  compareRates,
  compareSeen,
  compareTimings,
  type Operation,
  type RuleResult,
} from "./rules.ts";
import { compareShapes, type ShapeSample } from "./answer-shapes.ts";
import type { WebhookObservations } from "./observe-webhooks.ts";

/** The rule each step kind is judged under, and the operation it scores. */
export const CONDITION_RULES: Readonly<Record<StepKind, { readonly rule: string; readonly operation: Operation }>> = {
  send: { rule: "a valid order is placed", operation: "send" },
  "invalid-amount": { rule: "invalid input: HTTP status and error code", operation: "send" },
  replay: { rule: "a replay returns the same order", operation: "replay" },
  "replay-changed": { rule: "a replay with a changed payload: 409 and its code", operation: "replay" },
  lookup: { rule: "a placed order is found", operation: "lookup" },
  "lookup-unknown": { rule: "an unknown reference: HTTP status and error code", operation: "lookup" },
  balance: { rule: "the balance is read", operation: "balance" },
  "no-token": { rule: "no token: HTTP status and error code", operation: "balance" },
};

function answersOf(side: SideObservations, kind: StepKind): AnswerEvidence {
  const answers: Record<string, number> = {};
  let example: string | undefined;
  for (const step of side.steps) {
    if (step.kind !== kind || step.outcome.startsWith("skipped")) continue;
    answers[step.outcome] = (answers[step.outcome] ?? 0) + 1;
    example ??= step.curl;
  }
  return { answers, example };
}

/** The kinds of answer (outcomes) one side drew for a step kind. */
function shapeKinds(side: SideObservations, kind: StepKind): Set<string> {
  return new Set(side.steps.flatMap((step) => (step.kind === kind && step.shape !== undefined ? [step.shape.of] : [])));
}

/** Every path line of the answers of `kinds`, each prefixed by its kind: a refusal is compared with a refusal. */
function shapeSample(side: SideObservations, kind: StepKind, kinds: ReadonlySet<string>): ShapeSample {
  const lines: Record<string, number> = {};
  let answers = 0;
  let example: string | undefined;
  for (const step of side.steps) {
    if (step.kind !== kind || step.shape === undefined || !kinds.has(step.shape.of)) continue;
    answers += 1;
    example ??= step.curl;
    for (const line of step.shape.lines) {
      const key = `${step.shape.of} ${line}`;
      lines[key] = (lines[key] ?? 0) + 1;
    }
  }
  return { lines, answers, example };
}

/** One shape rule per step kind, over the kinds of answer both sides drew (the answer rules judge the rest). */
function shapeRules(simulator: SideObservations, target: SideObservations): RuleResult[] {
  return (Object.keys(CONDITION_RULES) as StepKind[]).map((kind) => {
    const theirs = shapeKinds(target, kind);
    const shared = new Set([...shapeKinds(simulator, kind)].filter((of) => theirs.has(of)));
    return compareShapes(
      `answer shape: ${kind}`,
      CONDITION_RULES[kind].operation,
      shapeSample(simulator, kind, shared),
      shapeSample(target, kind, shared),
    );
  });
}

function finalCount(side: SideObservations): number {
  return Object.values(side.finals).reduce((sum, count) => sum + count, 0);
}

function orderLifeRules(simulator: SideObservations, target: SideObservations): RuleResult[] {
  const failed = (side: SideObservations) => ({
    count: side.finalClasses.failed ?? 0,
    n: finalCount(side),
  });
  const unsettled = (side: SideObservations) => ({ count: side.unsettled, n: side.unsettled + finalCount(side) });
  return [
    compareSeen("final statuses reached", "send", { answers: simulator.finals }, { answers: target.finals }),
    compareRates("failed share of finals", "send", failed(simulator), failed(target)),
    compareRates("orders still pending at the deadline", "send", unsettled(simulator), unsettled(target)),
    compareTimings("pending → final time", "send", simulator.finalTimesMs, target.finalTimesMs, {
      simulator: simulator.finalTimeErrorsMs,
      target: target.finalTimeErrorsMs,
    }),
  ];
}

/**
 * @example
 * judge(simulatorSide, targetSide).filter((result) => !result.agrees); // the divergences
 */
export function judge(simulator: SideObservations, target: SideObservations): RuleResult[] {
  const conditions = (Object.keys(CONDITION_RULES) as StepKind[]).map((kind) => {
    const { rule, operation } = CONDITION_RULES[kind];
    return compareAnswers(rule, operation, answersOf(simulator, kind), answersOf(target, kind));
  });
  // Webhooks are judged only when both sides' were received; otherwise the webhook score reads "not observed".
  const webhooks =
    simulator.webhooks === undefined || target.webhooks === undefined
      ? []
      : judgeWebhooks(simulator.webhooks, target.webhooks);
  return [...conditions, ...shapeRules(simulator, target), ...orderLifeRules(simulator, target), ...webhooks];
}

// The webhook rules: what each side's receiver saw about the orders it
// placed, scored under the `webhook` operation. A status the two sides do
// not both reach is the "final statuses reached" rule's to report, so the
// webhooks of such a status are not judged a second time here.

export const WEBHOOK_RULES = {
  perFinalStatus: "webhooks per final status (status changes told per order)",
  arrivals: "retries: arrivals of one delivery id",
  spacing: "retry spacing: gaps between arrivals of one delivery id",
  duplicates: "duplicates: a status change sent under several delivery ids",
  eventNames: "webhook event names",
} as const;

function mostCommon(counts: Readonly<Record<string, number>>): string | undefined {
  return Object.entries(counts).sort(([a, x], [b, y]) => y - x || a.localeCompare(b))[0]?.[0];
}

function sum(counts: Readonly<Record<string, number>>): number {
  return Object.values(counts).reduce((total, count) => total + count, 0);
}

/** `{ Timeout: { "0": 5 } }` → `{ "Timeout: 0 per order": 5 }`, the form every report prints. */
function perOrderEvidence(eventsPerOrder: WebhookObservations["eventsPerOrder"]): AnswerEvidence {
  const answers: Record<string, number> = {};
  for (const [status, counts] of Object.entries(eventsPerOrder)) {
    for (const [events, orders] of Object.entries(counts)) answers[`${status}: ${events} per order`] = orders;
  }
  return { answers };
}

/**
 * For each final status both sides reached, the most common number of
 * status changes an order that ended in it was told must be the same: "no
 * webhook for Timeout" reads `Timeout: 0 per order` against `1 per order`.
 */
function comparePerFinalStatus(simulator: WebhookObservations, target: WebhookObservations): RuleResult {
  let observations = 0;
  let agrees = true;
  for (const [status, simCounts] of Object.entries(simulator.eventsPerOrder)) {
    const targetCounts = target.eventsPerOrder[status];
    if (targetCounts === undefined) continue;
    observations += Math.min(sum(simCounts), sum(targetCounts));
    if (mostCommon(simCounts) !== mostCommon(targetCounts)) agrees = false;
  }
  return {
    rule: WEBHOOK_RULES.perFinalStatus,
    operation: "webhook",
    agrees,
    // An order whose final is never told leaves the integrator's customer waiting: the costliest gap.
    severity: "high",
    observations,
    test: "per final status both sides reach, the most common count per order is the same",
    pValue: agrees ? 1 : 0,
    simulator: perOrderEvidence(simulator.eventsPerOrder),
    target: perOrderEvidence(target.eventsPerOrder),
  };
}

/** Delivery ids by times delivered, and the arrivals that came after the receiver had answered 2xx. */
function arrivalEvidence(side: WebhookObservations): AnswerEvidence {
  const answers: Record<string, number> = {};
  for (const [times, ids] of Object.entries(side.arrivalsPerDelivery)) answers[`delivered ${times}×`] = ids;
  if (side.repeatsAfter2xx > 0) answers["repeats after a 2xx"] = side.repeatsAfter2xx;
  return { answers };
}

/**
 * @example
 * judgeWebhooks(simulator.webhooks, target.webhooks).filter((result) => !result.agrees);
 */
export function judgeWebhooks(simulator: WebhookObservations, target: WebhookObservations): RuleResult[] {
  const arrivals = compareAnswers(
    WEBHOOK_RULES.arrivals,
    "webhook",
    { answers: simulator.arrivalsPerDelivery },
    { answers: target.arrivalsPerDelivery },
  );
  const changes = (side: WebhookObservations) => ({ count: side.duplicatedChanges, n: side.statusChanges });
  return [
    comparePerFinalStatus(simulator, target),
    // A handler must absorb repeats, but not more of them than it was built for: worth fixing, not breaking.
    { ...arrivals, severity: "medium", simulator: arrivalEvidence(simulator), target: arrivalEvidence(target) },
    compareTimings(WEBHOOK_RULES.spacing, "webhook", simulator.repeatGapsMs, target.repeatGapsMs),
    compareRates(WEBHOOK_RULES.duplicates, "webhook", changes(simulator), changes(target)),
    compareSeen(WEBHOOK_RULES.eventNames, "webhook", { answers: simulator.eventNames }, { answers: target.eventNames }),
  ];
}
