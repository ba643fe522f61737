/**
 * Placing one order: the order built at 0 Pending, handed to the store's one
 * atomic step (idempotency key → reference → balance → debit → order → key
 * bound to it), then its lifecycle started; or the answer to a key already
 * bound. `airtime-service.ts` normalises the request and calls
 * `placeAtomically` with the context it built once at start-up.
 */
import { PENDING_STATUS } from "../contract/status-codes.ts";
import { fingerprintOrder } from "./idempotency.ts";
import { flatString } from "./ids.ts";
import { assertPlan, createDefaultPlan, type LifecycleOptions, type StatusChanges } from "./lifecycle.ts";
import type { EvictedOrder, IdempotencyRecord, Order, OrderFingerprint, OutcomePlan, Wallet } from "./model.ts";
import type { OrderRetention } from "./order-retention.ts";
import type { Clock, Ids, PlaceResult, Random, Scheduler, Store } from "./ports.ts";
import type { PlaceOrderCommand, PlaceOrderOutcome } from "./service-types.ts";

/** What a placement reads and writes, built once per service. */
export interface Placement {
  readonly store: Store;
  readonly clock: Clock;
  readonly scheduler: Scheduler;
  readonly ids: Ids;
  readonly random: Random;
  readonly lifecycle: LifecycleOptions;
  readonly keyLifetimeMs: number;
  /** The message of 0 Pending in the status table. */
  readonly pendingMessage: string;
  readonly statusChanges: StatusChanges;
  readonly plans: PlanPool;
  readonly retention: Pick<OrderRetention, "afterInsert"> | undefined;
}

async function walletOf(
  ctx: Placement,
  customerId: string,
  shortcode: string | null,
  currency: string,
): Promise<Wallet> {
  const customer = await ctx.store.getCustomer(customerId);
  return customer?.wallets.find((wallet) => wallet.shortcode === shortcode) ?? { shortcode, balanceCents: 0, currency };
}

/** The order at 0 Pending, its plan drawn. */
function newOrder(ctx: Placement, command: PlaceOrderCommand, fingerprint: OrderFingerprint): Order {
  const { customerId } = command;
  const { reference, amountCents, currency, shortcode } = fingerprint;
  const now = ctx.clock.now();
  // Built field by field (spreads in a literal take V8's slow path), then frozen all the way down
  // (but for a caller's plan): the store keeps such a record without copying it.
  const order: { -readonly [K in keyof Order]: Order[K] } = {
    id: ctx.ids.next("ord"),
    customerId,
    reference,
    service: fingerprint.service,
    account: flatString(fingerprint.account),
    amountCents,
    currency,
    shortcode,
    status: PENDING_STATUS,
    message: ctx.pendingMessage,
    createdAt: now,
    updatedAt: now,
    history: Object.freeze([Object.freeze({ status: PENDING_STATUS, message: ctx.pendingMessage, at: now })]),
    plan: command.plan ?? ctx.plans.share(createDefaultPlan(ctx.lifecycle, ctx.random)),
  };
  if (command.request.idempotencyKey !== undefined) order.idempotencyKey = command.request.idempotencyKey;
  if (command.webhookFaults !== undefined) order.webhookFaults = command.webhookFaults;
  return Object.freeze(order);
}

/** A stored order's lifecycle starts, and the order cap hears of it. */
async function started(ctx: Placement, order: Order): Promise<PlaceOrderOutcome> {
  const placed = await ctx.statusChanges.start(order);
  await ctx.retention?.afterInsert();
  return { kind: "placed", order: placed };
}

/**
 * The placement as one atomic store step (`Store.placeOrder`): a process
 * killed mid-way leaves all of it or none, never a debit without its order
 * or a key without its order.
 */
export async function placeAtomically(
  ctx: Placement,
  command: PlaceOrderCommand,
  fingerprint: OrderFingerprint,
): Promise<PlaceOrderOutcome> {
  const { customerId } = command;
  const { reference, shortcode, currency } = fingerprint;
  if (command.plan !== undefined) assertPlan(command.plan);
  if (command.forceInsufficient === true) {
    return { kind: "insufficient_balance", reference, wallet: await walletOf(ctx, customerId, shortcode, currency) };
  }
  const order = newOrder(ctx, command, fingerprint);
  const key = command.request.idempotencyKey;
  const now = ctx.clock.now();
  const placement: { order: Order; now: number; key?: IdempotencyRecord } = { order, now };
  if (key !== undefined) {
    // Frozen, like the order: a store keeps it without copying.
    placement.key = Object.freeze({
      customerId,
      key,
      fingerprint: fingerprintOrder(fingerprint),
      expiresAt: now + ctx.keyLifetimeMs,
      orderId: order.id,
    });
  }
  const [result, firstStep] = await placeWithFirstStep(ctx, placement);
  if (result.kind !== "placed" && firstStep !== undefined) await ctx.scheduler.cancel(firstStep);
  switch (result.kind) {
    case "placed":
      return started(ctx, order);
    case "existing":
      return replayOf(ctx, result.record, fingerprint, now);
    case "duplicate_reference":
      return { kind: "duplicate_reference", reference };
    case "insufficient":
      return { kind: "insufficient_balance", reference, wallet: result.wallet };
    case "unknown_wallet":
      return { kind: "unknown_shortcode", shortcode: shortcode ?? "" };
    default:
      return assertNever(result);
  }
}

/**
 * The placement and its first step's job, sent together: one round trip on
 * a shared store. On Redis Cluster they go to two masters, and a fault can
 * part them: the job's write fails while the order's is applied, or the
 * order's answer is lost and its write lands after the step fell due (a
 * step finding no order looks again for 10 s, then ends). The request then
 * answers 503, and the order may hold its debit with no step to come; so
 * once the placement's outcome
 * is known the job is scheduled again, if absent, before the error goes on.
 * When the order was placed and only the job failed, the second try that
 * succeeds makes the placement whole.
 */
async function placeWithFirstStep(
  ctx: Placement,
  placement: Parameters<Store["placeOrder"]>[0],
): Promise<[PlaceResult, string | undefined]> {
  const [placed, scheduled] = await Promise.allSettled([
    ctx.store.placeOrder(placement),
    ctx.statusChanges.scheduleFirst(placement.order),
  ]);
  if (placed.status === "fulfilled" && scheduled.status === "fulfilled") return [placed.value, scheduled.value];
  if (placed.status === "rejected" || placed.value.kind === "placed") {
    const again = await ctx.statusChanges.scheduleFirst(placement.order, true).then(
      (jobId) => ({ jobId }),
      () => undefined,
    );
    if (placed.status === "fulfilled" && again !== undefined) return [placed.value, again.jobId];
  }
  throw placed.status === "rejected" ? placed.reason : (scheduled as PromiseRejectedResult).reason;
}

/** The answer to a key already bound: its order, or a mismatch when the payload differs. */
async function replayOf(
  ctx: Placement,
  record: IdempotencyRecord,
  fingerprint: OrderFingerprint,
  now: number,
): Promise<PlaceOrderOutcome> {
  if (record.fingerprint !== fingerprintOrder(fingerprint)) return { kind: "payload_mismatch" };
  // Same payload, same reference: found through the customer's own keys, whatever the indexes across customers hold.
  const order = await ctx.store.getOrderByReference(record.customerId, fingerprint.reference);
  if (order !== undefined && order.id === record.orderId) {
    await ctx.statusChanges.resume(order);
    return { kind: "replayed", order };
  }
  const evicted = record.orderId === undefined ? undefined : await ctx.store.getEvictedOrder(record.orderId, now);
  if (evicted !== undefined) return { kind: "replayed", order: orderFromEvicted(evicted, fingerprint) };
  throw new Error(`idempotency key of ${record.customerId} is bound to an order that is gone`);
}

/**
 * The order a replay answers with after its order was evicted: the same id,
 * reference and status, the payload the key is bound to, and the one status
 * step the record kept.
 */
function orderFromEvicted(evicted: EvictedOrder, fingerprint: OrderFingerprint): Order {
  return {
    id: evicted.id,
    customerId: evicted.customerId,
    reference: evicted.reference,
    service: fingerprint.service,
    account: fingerprint.account,
    amountCents: fingerprint.amountCents,
    currency: fingerprint.currency,
    shortcode: fingerprint.shortcode,
    status: evicted.status,
    message: evicted.message,
    createdAt: evicted.createdAt,
    updatedAt: evicted.updatedAt,
    history: [{ status: evicted.status, message: evicted.message, at: evicted.updatedAt }],
  };
}

function freezePlan(plan: OutcomePlan): OutcomePlan {
  for (const step of plan.steps) Object.freeze(step);
  Object.freeze(plan.steps);
  return Object.freeze(plan);
}

/** Orders with equal default plans share one frozen plan. */
export interface PlanPool {
  share(plan: OutcomePlan): OutcomePlan;
}

/** Distinct default plans kept for sharing; a lognormal timing may draw many delays. */
const MAX_SHARED_PLANS = 10_000;

/**
 * Default plans (one step: a delay and a final status) repeat: with a fixed
 * timing every order has the same one. Orders with equal plans share one
 * frozen plan instead of each keeping three objects of its own. The plan is
 * still drawn for every order, so the seeded random sequence is unchanged.
 */
export function createPlanPool(): PlanPool {
  /** status → afterMs → plan */
  const pool = new Map<number, Map<number, OutcomePlan>>();
  let size = 0;
  return {
    share(plan) {
      const step = plan.steps[0];
      const simple =
        plan.steps.length === 1 &&
        step !== undefined &&
        Object.keys(plan).length === 1 &&
        Object.keys(step).length === 2 &&
        Object.hasOwn(step, "afterMs") &&
        Object.hasOwn(step, "status");
      if (!simple) return freezePlan(plan);
      let byDelay = pool.get(step.status);
      const shared = byDelay?.get(step.afterMs);
      if (shared !== undefined) return shared;
      const frozen = freezePlan(plan);
      if (size < MAX_SHARED_PLANS) {
        if (byDelay === undefined) {
          byDelay = new Map();
          pool.set(step.status, byDelay);
        }
        byDelay.set(step.afterMs, frozen);
        size++;
      }
      return frozen;
    },
  };
}

function assertNever(value: never): never {
  throw new Error(`unexpected value ${JSON.stringify(value)}`);
}
