/**
 * The simulator's three operations and the admin transition, framework-free.
 *
 * `placeOrder` normalises the request, builds the order at 0 Pending, and
 * hands it to the store's one atomic step (idempotency key → reference →
 * balance → debit → order → key bound to it), then starts its lifecycle. A
 * refusal changes nothing, so the client can fix the cause and retry with
 * the same key and reference.
 */
import { PENDING_STATUS, type StatusTable } from "../contract/status-codes.ts";
import { createCustomerAuthenticator } from "./customer-auth.ts";
import { flatString } from "./flat-string.ts";
import { createKeyedQueue, DEFAULT_KEY_LIFETIME_MS, fingerprintOrder } from "./idempotency.ts";
import { assertLifecycleOptions, assertPlan, createDefaultPlan, type LifecycleOptions } from "./lifecycle.ts";
import type { EvictedOrder, IdempotencyRecord, Order, OrderFingerprint, OutcomePlan, Wallet } from "./model.ts";
import { normaliseOrderRequest } from "./order-request.ts";
import type { OrderRetention } from "./order-retention.ts";
import type { Clock, Ids, Random, Scheduler, Store } from "./ports.ts";
import type { AirtimeService, OrderEvents, PlaceOrderCommand, PlaceOrderOutcome } from "./service-types.ts";
import { createStatusChanges } from "./status-changes.ts";

export interface AirtimeServiceDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly scheduler: Scheduler;
  readonly ids: Ids;
  readonly random: Random;
  readonly events: OrderEvents;
  readonly statusTable: StatusTable;
  readonly lifecycle: LifecycleOptions;
  /** How long an idempotency key binds its payload, on the simulator clock. Default 24 h. */
  readonly keyLifetimeMs?: number;
  /** Where a throwing `events` listener is reported (default: console.error); the change stands. */
  readonly onEventError?: ((error: unknown, order: Order) => void) | undefined;
  /** The order cap, told of every insert (default: none, every order kept). */
  readonly retention?: Pick<OrderRetention, "afterInsert">;
}

/**
 * Builds the domain service on the given ports. Registers the `order.step`
 * job handler on the scheduler.
 *
 * @example
 * const time = createTimeKeeper({ mode: "virtual", startAt: 0 });
 * const service = createAirtimeService({
 *   store: createMemoryStore(), clock: time.clock, scheduler: time.scheduler,
 *   ids: createSequentialIds(), random: createSeededRandom(1), events: { statusChanged: async () => {} },
 *   statusTable: DEFAULT_STATUS_TABLE, lifecycle: DEFAULT_LIFECYCLE,
 * });
 * const outcome = await service.placeOrder({ customerId: "cus_1",
 *   request: { account: "0712345678", amountCents: 10_000, currency: "KES", reference: "r1", idempotencyKey: "k1" } });
 * // outcome.kind === "placed", outcome.order.status === 0; after time.advance(2000) the order is 20 Success
 */
export function createAirtimeService(deps: AirtimeServiceDeps): AirtimeService {
  const { store, clock, scheduler, ids, random, statusTable, lifecycle } = deps;
  const keyLifetimeMs = deps.keyLifetimeMs ?? DEFAULT_KEY_LIFETIME_MS;
  if (!(Number.isFinite(keyLifetimeMs) && keyLifetimeMs > 0)) throw new RangeError("keyLifetimeMs must be > 0");
  assertLifecycleOptions(lifecycle, statusTable);
  const pendingMessage = statusTable.get(PENDING_STATUS)?.message ?? "Pending";
  const statusChanges = createStatusChanges(deps);
  const sameKey = createKeyedQueue();
  const authenticator = createCustomerAuthenticator({ store, clock });
  const plans = createPlanPool();

  async function walletOf(customerId: string, shortcode: string | null, currency: string): Promise<Wallet> {
    const customer = await store.getCustomer(customerId);
    return (
      customer?.wallets.find((wallet) => wallet.shortcode === shortcode) ?? { shortcode, balanceCents: 0, currency }
    );
  }

  /** The order at 0 Pending, its plan drawn. */
  function newOrder(command: PlaceOrderCommand, fingerprint: OrderFingerprint): Order {
    const { customerId } = command;
    const { reference, amountCents, currency, shortcode } = fingerprint;
    const now = clock.now();
    // Built field by field (spreads in a literal take V8's slow path), then frozen all the way down
    // (but for a caller's plan): the store keeps such a record without copying it.
    const order: { -readonly [K in keyof Order]: Order[K] } = {
      id: ids.next("ord"),
      customerId,
      reference,
      service: fingerprint.service,
      account: flatString(fingerprint.account),
      amountCents,
      currency,
      shortcode,
      status: PENDING_STATUS,
      message: pendingMessage,
      createdAt: now,
      updatedAt: now,
      history: Object.freeze([Object.freeze({ status: PENDING_STATUS, message: pendingMessage, at: now })]),
      plan: command.plan ?? plans.share(createDefaultPlan(lifecycle, random)),
    };
    if (command.request.idempotencyKey !== undefined) order.idempotencyKey = command.request.idempotencyKey;
    if (command.webhookFaults !== undefined) order.webhookFaults = command.webhookFaults;
    return Object.freeze(order);
  }

  /** A stored order's lifecycle starts, and the order cap hears of it. */
  async function started(order: Order): Promise<PlaceOrderOutcome> {
    const placed = await statusChanges.start(order);
    await deps.retention?.afterInsert();
    return { kind: "placed", order: placed };
  }

  /**
   * The placement as one atomic store step (`Store.placeOrder`): a process
   * killed mid-way leaves all of it or none, never a debit without its order
   * or a key without its order.
   */
  async function placeAtomically(
    command: PlaceOrderCommand,
    fingerprint: OrderFingerprint,
  ): Promise<PlaceOrderOutcome> {
    const { customerId } = command;
    const { reference, shortcode, currency } = fingerprint;
    if (command.plan !== undefined) assertPlan(command.plan);
    if (command.forceInsufficient === true) {
      return { kind: "insufficient_balance", reference, wallet: await walletOf(customerId, shortcode, currency) };
    }
    const order = newOrder(command, fingerprint);
    const key = command.request.idempotencyKey;
    const now = clock.now();
    const placement: { order: Order; now: number; key?: IdempotencyRecord } = { order, now };
    if (key !== undefined) {
      // Frozen, like the order: a store keeps it without copying.
      placement.key = Object.freeze({
        customerId,
        key,
        fingerprint: fingerprintOrder(fingerprint),
        expiresAt: now + keyLifetimeMs,
        orderId: order.id,
      });
    }
    // One round trip on a shared store: the step's job goes out with the placement.
    const [result, firstStep] = await Promise.all([store.placeOrder(placement), statusChanges.scheduleFirst(order)]);
    if (result.kind !== "placed" && firstStep !== undefined) await scheduler.cancel(firstStep);
    switch (result.kind) {
      case "placed":
        return started(order);
      case "existing":
        return replayOf(result.record, fingerprint, now);
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

  /** The answer to a key already bound: its order, or a mismatch when the payload differs. */
  async function replayOf(
    record: IdempotencyRecord,
    fingerprint: OrderFingerprint,
    now: number,
  ): Promise<PlaceOrderOutcome> {
    if (record.fingerprint !== fingerprintOrder(fingerprint)) return { kind: "payload_mismatch" };
    // Same payload, same reference: found through the customer's own keys, whatever the indexes across customers hold.
    const order = await store.getOrderByReference(record.customerId, fingerprint.reference);
    if (order !== undefined && order.id === record.orderId) {
      await statusChanges.resume(order);
      return { kind: "replayed", order };
    }
    const evicted = record.orderId === undefined ? undefined : await store.getEvictedOrder(record.orderId, now);
    if (evicted !== undefined) return { kind: "replayed", order: orderFromEvicted(evicted, fingerprint) };
    throw new Error(`idempotency key of ${record.customerId} is bound to an order that is gone`);
  }

  return {
    async placeOrder(command) {
      const customer = command.customer ?? (await store.getCustomer(command.customerId));
      if (customer === undefined) {
        // Only when the customer was deleted after authenticating; there is no wallet to fund anything.
        return { kind: "unknown_shortcode", shortcode: command.request.shortcode ?? "" };
      }
      const normalised = normaliseOrderRequest(customer, command.request);
      if (normalised.kind !== "normalised") return normalised;
      const key = command.request.idempotencyKey;
      const { fingerprint } = normalised;
      if (key === undefined) return placeAtomically(command, fingerprint);
      // Same-key requests of this process answer in arrival order: a replay sees the order as its placement left it.
      return sameKey.run(`${command.customerId}\u0000${key}`, () => placeAtomically(command, fingerprint));
    },

    getOrderByReference(customerId, reference) {
      return store.getOrderByReference(customerId, reference);
    },

    async findOrder(customerId, reference) {
      const order = await store.getOrderByReference(customerId, reference);
      if (order !== undefined) return { kind: "found", order };
      const evicted = await store.getEvictedOrderByReference(customerId, reference, clock.now());
      return evicted === undefined ? { kind: "not_found" } : { kind: "evicted", evicted };
    },

    async getBalance(customerId, shortcode) {
      const customer = await store.getCustomer(customerId);
      const wallets = customer?.wallets ?? [];
      const wallet = wallets.find((candidate) => candidate.shortcode === (shortcode ?? null));
      if (wallet === undefined) return { kind: "unknown_shortcode", shortcode: shortcode ?? "" };
      return { kind: "balance", wallet, wallets };
    },

    forceTransition(orderId, status, message) {
      return statusChanges.transition(orderId, status, message);
    },

    authenticate(token) {
      return authenticator.authenticate(token);
    },
  };
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

/** Distinct default plans kept for sharing; a lognormal timing may draw many delays. */
const MAX_SHARED_PLANS = 10_000;

/**
 * Default plans (one step: a delay and a final status) repeat: with a fixed
 * timing every order has the same one. Orders with equal plans share one
 * frozen plan instead of each keeping three objects of its own. The plan is
 * still drawn for every order, so the seeded random sequence is unchanged.
 */
function createPlanPool(): { share(plan: OutcomePlan): OutcomePlan } {
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
