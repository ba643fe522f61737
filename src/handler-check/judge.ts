/**
 * The rules, judged by what the handler answers and what its app ends up
 * believing. The ledger is the sender's view of the run: which messages went
 * out, which the handler acknowledged, and which it visibly applied.
 */
import { DEFAULT_STATUS_TABLE } from "../contract/status-codes.ts";
import type { Believed } from "./believed-state.ts";
import type { Forgery, SignedRequest, WebhookMessage } from "./delivery-dialect.ts";
import type { HandlerAnswer } from "./handler-client.ts";
import type { StepKind } from "./sequence-model.ts";
import type { TrueOrder } from "./simulator-truth.ts";

export const RULES = ["authenticity", "acknowledgement", "no_5xx", "idempotence", "convergence"] as const;
export type RuleName = (typeof RULES)[number];

/** What each rule demands, for reports and `--help`. */
export const RULE_TEXT: Readonly<Record<RuleName, string>> = {
  authenticity: "a bad or stale signature or an altered body is refused with a 4xx and changes nothing",
  acknowledgement: "every genuine delivery, duplicates included, gets a 2xx within the timeout",
  no_5xx: "no 5xx for a delivery the simulator considers valid",
  idempotence: "copies of a message, sequential or concurrent, apply it at most once (the effects count)",
  convergence: "in the end the app believes each order's final status (Reversed wins over Success)",
};

export interface Violation {
  readonly rule: RuleName;
  readonly message: string;
}

export interface SentDelivery {
  readonly message: WebhookMessage;
  readonly forgery?: Forgery;
  readonly request: SignedRequest;
  readonly answer: HandlerAnswer;
}

export interface Ledger {
  /** Message ids sent genuinely at least once. */
  readonly delivered: Set<string>;
  /** Message ids the sender saw a 2xx for. */
  readonly acknowledged: Set<string>;
  /** Message ids whose delivery, alone in its step, raised the effects count. */
  readonly applied: Set<string>;
}

export function createLedger(): Ledger {
  return { delivered: new Set(), acknowledged: new Set(), applied: new Set() };
}

export function describeStatus(status: number | null): string {
  if (status === null) return "nothing (unknown order)";
  const definition = DEFAULT_STATUS_TABLE.get(status);
  return definition === undefined ? String(status) : `${status} ${definition.message}`;
}

export function describeMessage(message: WebhookMessage): string {
  return `${message.id} (${message.reference}: ${describeStatus(message.status)})`;
}

function sameBelief(a: Believed | undefined, b: Believed | undefined): boolean {
  return a?.status === b?.status && a?.effects === b?.effects;
}

function judgeAnswer(delivery: SentDelivery): Violation | undefined {
  const { answer } = delivery;
  const what = describeMessage(delivery.message);
  if (delivery.forgery !== undefined) {
    if (answer.kind === "answered" && answer.status >= 400 && answer.status < 500) return undefined;
    const got =
      answer.kind === "answered"
        ? `answered ${answer.status}`
        : `got ${answer.kind === "timeout" ? "no answer" : "no connection"}`;
    return {
      rule: "authenticity",
      message: `a delivery of ${what} with ${forgeryText(delivery.forgery)} ${got}; it must be refused with a 4xx`,
    };
  }
  if (answer.kind === "answered" && answer.status >= 200 && answer.status < 300) return undefined;
  if (answer.kind === "answered" && answer.status >= 500) {
    return { rule: "no_5xx", message: `a genuine delivery of ${what} was answered ${answer.status}` };
  }
  const got =
    answer.kind === "answered"
      ? `was answered ${answer.status}`
      : answer.kind === "timeout"
        ? `got no answer within ${answer.ms} ms`
        : `could not be delivered (${answer.reason})`;
  return { rule: "acknowledgement", message: `a genuine delivery of ${what} ${got}; it needs a 2xx` };
}

export function forgeryText(forgery: Forgery): string {
  switch (forgery) {
    case "bad_signature":
      return "a bad signature";
    case "stale_timestamp":
      return "a timestamp beyond the tolerance";
    case "altered_body":
      return "a body altered after signing";
    default: {
      const unreachable: never = forgery;
      throw new Error(`unknown forgery ${String(unreachable)}`);
    }
  }
}

/** Effects may grow by at most one for each message neither acknowledged nor seen applied before. */
function judgeEffects(
  sent: readonly SentDelivery[],
  before: ReadonlyMap<string, Believed>,
  after: ReadonlyMap<string, Believed>,
  ledger: Ledger,
): Violation | undefined {
  const byReference = new Map<string, Set<string>>();
  for (const { message, forgery } of sent) {
    if (forgery !== undefined) continue;
    byReference.set(message.reference, (byReference.get(message.reference) ?? new Set()).add(message.id));
  }
  for (const [reference, ids] of byReference) {
    const was = before.get(reference)?.effects ?? 0;
    const now = after.get(reference)?.effects;
    if (now === null || now === undefined) continue;
    const fresh = [...ids].filter((id) => !ledger.acknowledged.has(id) && !ledger.applied.has(id));
    if (now - was > fresh.length) {
      const copies = sent.filter((d) => d.forgery === undefined && d.message.reference === reference).length;
      return {
        rule: "idempotence",
        message: `${copies} ${copies === 1 ? "delivery" : "copies"} of ${[...ids].join(", ")} raised the effects count of ${reference} from ${was} to ${now}; at most ${was + fresh.length} (each message applies once)`,
      };
    }
  }
  return undefined;
}

/**
 * One step's verdict: answers first (a forgery must get a 4xx, a genuine
 * delivery a 2xx and never a 5xx), then the app's state (a forgery changes
 * nothing; copies apply once). Updates the ledger.
 */
export function judgeStep(
  kind: StepKind,
  sent: readonly SentDelivery[],
  before: ReadonlyMap<string, Believed>,
  after: ReadonlyMap<string, Believed>,
  ledger: Ledger,
): Violation | undefined {
  for (const delivery of sent) {
    const violation = judgeAnswer(delivery);
    if (violation !== undefined) return violation;
  }
  for (const delivery of sent) {
    if (delivery.forgery === undefined) continue;
    const reference = delivery.message.reference;
    if (!sameBelief(before.get(reference), after.get(reference))) {
      return {
        rule: "authenticity",
        message: `a delivery with ${forgeryText(delivery.forgery)} was refused, yet ${reference} changed: ${describeBelief(before.get(reference))} → ${describeBelief(after.get(reference))}`,
      };
    }
  }
  const effects = judgeEffects(sent, before, after, ledger);
  if (effects !== undefined) return effects;
  recordInLedger(kind, sent, before, after, ledger);
  return undefined;
}

function recordInLedger(
  kind: StepKind,
  sent: readonly SentDelivery[],
  before: ReadonlyMap<string, Believed>,
  after: ReadonlyMap<string, Believed>,
  ledger: Ledger,
): void {
  const genuine = sent.filter((delivery) => delivery.forgery === undefined);
  for (const { message, answer } of genuine) {
    ledger.delivered.add(message.id);
    // The sender never saw the answer to a lost one: for it, that message is still unacknowledged.
    if (kind !== "answer_lost" && answer.kind === "answered" && answer.status < 300)
      ledger.acknowledged.add(message.id);
  }
  const only = genuine[0]?.message;
  if (only !== undefined && genuine.every((d) => d.message.id === only.id)) {
    const raised = (after.get(only.reference)?.effects ?? 0) > (before.get(only.reference)?.effects ?? 0);
    if (raised) ledger.applied.add(only.id);
  }
}

export function describeBelief(believed: Believed | undefined): string {
  if (believed === undefined) return "not read";
  const status = describeStatus(believed.status);
  return believed.effects === null ? status : `${status}, effects ${believed.effects}`;
}

/** After the sequence: the app believes every order's final status. */
export function judgeConvergence(
  orders: readonly TrueOrder[],
  believed: ReadonlyMap<string, Believed>,
): Violation | undefined {
  for (const order of orders) {
    const status = believed.get(order.reference)?.status ?? null;
    if (status === order.finalStatus) continue;
    return {
      rule: "convergence",
      message: `after every delivery the app believes ${order.reference} is ${describeStatus(status)}; the simulator says ${describeStatus(order.finalStatus)}`,
    };
  }
  return undefined;
}
