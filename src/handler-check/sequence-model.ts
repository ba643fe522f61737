/**
 * The delivery sequences, as fast-check generates and shrinks them. A plan
 * names messages and positions by number (`index % count`, so every plan is
 * valid whatever orders it meets); `buildSteps` turns it into the concrete
 * steps for the orders the simulator realised. Everything shrinks towards
 * one order, delivered once each in the order it happened.
 */
import fc from "fast-check";
import { type Forgery, type WebhookMessage } from "./delivery-dialect.ts";
import type { OrderPlan, TrueOrder } from "./simulator-truth.ts";

export type PlannedExtra =
  /** The same message again, later: a duplicate, or a retry the handler already answered. */
  | { readonly kind: "again"; readonly message: number; readonly at: number }
  /** Several copies at once, one webhook-id: two workers racing. */
  | { readonly kind: "concurrent"; readonly message: number; readonly copies: number; readonly at: number }
  /** Delivered, but the answer never reached the sender (it timed out); retried `after` steps later. */
  | { readonly kind: "answer_lost"; readonly message: number; readonly after: number; readonly at: number }
  /** Bad signature, stale timestamp or a body altered after signing. */
  | { readonly kind: "forged"; readonly message: number; readonly forgery: Forgery; readonly at: number };

/** An order, and the sort keys of its messages (missing keys are 0): out-of-order delivery. */
export interface PlannedOrder {
  readonly order: OrderPlan;
  readonly keys: readonly number[];
}

export interface SequencePlan {
  /** Each order keeps its own keys, so shrinking one order away leaves the others' disorder as it was. */
  readonly orders: readonly PlannedOrder[];
  readonly extras: readonly PlannedExtra[];
  /** First deliveries queued while the handler was down, arriving at once. */
  readonly downtime: { readonly from: number; readonly length: number } | null;
  /** Orders (by position) whose last message is withheld: the handler learns it only by looking it up. */
  readonly withheld: readonly number[];
}

export type StepKind = "deliver" | "again" | "concurrent" | "answer_lost" | "retry" | "burst" | "forged";

export interface PlannedDelivery {
  readonly message: WebhookMessage;
  readonly forgery?: Forgery;
}

export interface Step {
  readonly kind: StepKind;
  /** Sent at once when more than one. */
  readonly deliveries: readonly PlannedDelivery[];
}

export interface SequenceOptions {
  /** Withhold final messages (only for handlers that reconcile by looking orders up). */
  readonly withhold: boolean;
  readonly maxOrders: number;
  /** The forgeries the dialect can make (`FORGERIES` for a signed one); none for an unsigned dialect. */
  readonly forgeries: readonly Forgery[];
}

/** The finals a handler most often gets wrong, Reversed (through Success) among them. */
const FINALS = [20, 8, 2, 6, 7] as const;
const PENDING = [3, 31] as const;

const orderPlanArbitrary: fc.Arbitrary<OrderPlan> = fc.record({
  pending: fc.subarray([...PENDING]),
  final: fc.constantFrom(...FINALS),
  amount: fc.integer({ min: 10, max: 5_000 }),
});

function extraArbitrary(forgeries: readonly Forgery[]): fc.Arbitrary<PlannedExtra> {
  const copies: fc.Arbitrary<PlannedExtra>[] = [
    fc.record({ kind: fc.constant("again" as const), message: fc.nat(), at: fc.nat() }),
    fc.record({
      kind: fc.constant("concurrent" as const),
      message: fc.nat(),
      copies: fc.integer({ min: 2, max: 4 }),
      at: fc.nat(),
    }),
    fc.record({ kind: fc.constant("answer_lost" as const), message: fc.nat(), after: fc.nat(), at: fc.nat() }),
  ];
  // An unsigned dialect has nothing to forge: no forged deliveries are generated at all.
  if (forgeries.length === 0) return fc.oneof(...copies);
  const forged = fc.record({
    kind: fc.constant("forged" as const),
    message: fc.nat(),
    forgery: fc.constantFrom(...forgeries),
    at: fc.nat(),
  });
  return fc.oneof(...copies, forged);
}

/**
 * @example
 * fc.assert(fc.asyncProperty(sequencePlanArbitrary({ withhold: false, maxOrders: 3, forgeries: FORGERIES }), async (plan) => …));
 */
export function sequencePlanArbitrary(options: SequenceOptions): fc.Arbitrary<SequencePlan> {
  const orderPositions = Array.from({ length: options.maxOrders }, (_, index) => index);
  return fc.record({
    orders: fc.array(fc.record({ order: orderPlanArbitrary, keys: fc.array(fc.nat({ max: 9 }), { maxLength: 4 }) }), {
      minLength: 1,
      maxLength: options.maxOrders,
    }),
    extras: fc.array(extraArbitrary(options.forgeries), { maxLength: 4 }),
    downtime: fc.option(fc.record({ from: fc.nat(), length: fc.integer({ min: 2, max: 6 }) }), { nil: null }),
    withheld: options.withhold ? fc.subarray(orderPositions) : fc.constant([]),
  });
}

/** The message every delivery of the sequence carries, chosen by position among all of them. */
function pick(messages: readonly WebhookMessage[], index: number): WebhookMessage {
  return messages[index % messages.length] as WebhookMessage;
}

/** Every message but the withheld ones, with its sort key, in the order they happened. */
function sentMessages(plan: SequencePlan, orders: readonly TrueOrder[]): { message: WebhookMessage; key: number }[] {
  const withheld = new Set(withheldOrders(plan, orders).map((order) => order.messages.at(-1)?.id));
  return orders
    .flatMap((order, position) =>
      order.messages.map((message, index) => ({ message, key: plan.orders[position]?.keys[index] ?? 0 })),
    )
    .filter(({ message }) => !withheld.has(message.id));
}

function shuffled(sent: readonly { message: WebhookMessage; key: number }[]): WebhookMessage[] {
  // A stable sort on generated keys: all-zero keys (what shrinking reaches) keep the order things happened in.
  return [...sent].sort((a, b) => a.key - b.key).map(({ message }) => message);
}

function withDowntime(plan: SequencePlan, messages: readonly WebhookMessage[]): Step[] {
  const steps: Step[] = messages.map((message) => ({ kind: "deliver", deliveries: [{ message }] }));
  if (plan.downtime === null || steps.length < 2) return steps;
  const from = plan.downtime.from % steps.length;
  const queued = steps.splice(from, plan.downtime.length);
  if (queued.length < 2) {
    steps.splice(from, 0, ...queued);
    return steps;
  }
  steps.splice(from, 0, { kind: "burst", deliveries: queued.flatMap((step) => step.deliveries) });
  return steps;
}

function insertExtra(steps: Step[], extra: PlannedExtra, messages: readonly WebhookMessage[]): void {
  const message = pick(messages, extra.message);
  const at = extra.at % (steps.length + 1);
  switch (extra.kind) {
    case "again":
      steps.splice(at, 0, { kind: "again", deliveries: [{ message }] });
      return;
    case "concurrent":
      steps.splice(at, 0, {
        kind: "concurrent",
        deliveries: Array.from({ length: extra.copies }, () => ({ message })),
      });
      return;
    case "answer_lost": {
      steps.splice(at, 0, { kind: "answer_lost", deliveries: [{ message }] });
      const retryAt = at + 1 + (extra.after % (steps.length - at));
      steps.splice(retryAt, 0, { kind: "retry", deliveries: [{ message }] });
      return;
    }
    case "forged":
      steps.splice(at, 0, { kind: "forged", deliveries: [{ message, forgery: extra.forgery }] });
      return;
    default: {
      const unreachable: never = extra;
      throw new Error(`unknown extra ${JSON.stringify(unreachable)}`);
    }
  }
}

/** The plan's steps for these orders: every message not withheld once, in the plan's order, plus the extras. */
export function buildSteps(plan: SequencePlan, orders: readonly TrueOrder[]): Step[] {
  const sent = sentMessages(plan, orders);
  const steps = withDowntime(plan, shuffled(sent));
  if (sent.length === 0) return steps;
  const messages = sent.map(({ message }) => message);
  for (const extra of plan.extras) insertExtra(steps, extra, messages);
  return steps;
}

/** The orders whose last message the plan withholds. */
export function withheldOrders(plan: SequencePlan, orders: readonly TrueOrder[]): TrueOrder[] {
  return [...new Set(plan.withheld)].flatMap((position) => orders[position] ?? []);
}
