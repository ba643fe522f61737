/**
 * The webhook rules: what each side's receiver saw about the orders it
 * placed, judged with the tests of rules.ts and scored under the `webhook`
 * operation. A status the two sides do not both reach is the "final statuses
 * reached" rule's to report, so the webhooks of such a status are not
 * judged a second time here.
 */
import type { WebhookObservations } from "./observe-webhooks.ts";
import {
  type AnswerEvidence,
  compareAnswers,
  compareRates,
  compareSeen,
  compareTimings,
  type RuleResult,
} from "./rules.ts";

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
