/**
 * How an order moves from 0 Pending to its final status: the plan drawn for
 * it when placed, and the one place its status changes.
 *
 * The plan. By default: after one sampled delay the order becomes 20
 * Success, or — with the seeded failure rate — a failure status (2 Failed by
 * default). An outcome mix replaces the failure rate with a share per failed
 * status (Failed 10 %, Timeout 5 %), each with its own timing where it has
 * one. Scenarios replace the plan per order. Steps are applied by
 * `createStatusChanges` (below), one job per step on the Scheduler; each
 * step's `afterMs` counts from the previous step.
 *
 * The status changes, whether by a planned step or by an admin. The rules:
 * only `isAllowedTransition` moves (a final status never changes, except
 * Success → Reversed); entering a failed-class status refunds the funding
 * wallet — exactly once, because a failed-class status is final and never
 * left; every stored change is announced to `events`. Changes are
 * compare-and-set on the order's version (its history length), so a planned
 * step and an admin transition racing on one order cannot both win, and a
 * refund cannot happen twice.
 */
import {
  FAILED_STATUS,
  isAllowedTransition,
  isFinalStatus,
  refundsWallet,
  type StatusTable,
  SUCCESS_STATUS,
} from "../contract/status-codes.ts";
import type { Customer, Order, OutcomePlan, PlannedTransition, Wallet } from "./model.ts";
import {
  type Clock,
  type Job,
  type Random,
  type Scheduler,
  type Store,
  StoreNotReplicatedError,
  StoreUnavailableError,
} from "./ports.ts";
import type { OrderEvents, TransitionOutcome } from "./service-types.ts";
import { DEFAULT_TIMING, sampleDelay, type Timing } from "./timing.ts";

/** One failed outcome of the mix: its final status, its share of all orders, and its own timing if it differs. */
export interface OutcomeShare {
  readonly status: number;
  readonly share: number;
  readonly timing?: Timing | undefined;
}

export interface LifecycleOptions {
  /** Pending → final delay. */
  readonly timing: Timing;
  /** Share of orders that fail, 0..1, drawn from the seeded random. */
  readonly failureRate: number;
  /** The final status of a failing order. */
  readonly failureStatus: number;
  /** When given, replaces failureRate and failureStatus: the rest of the orders succeed. */
  readonly outcomes?: readonly OutcomeShare[] | undefined;
}

export const DEFAULT_LIFECYCLE: LifecycleOptions = {
  timing: DEFAULT_TIMING,
  failureRate: 0,
  failureStatus: FAILED_STATUS,
};

/** The Scheduler job type that applies one planned step. */
export const ORDER_STEP_JOB = "order.step";

/** Payload of an `order.step` job: the plan itself stays on the stored order. */
export interface OrderStepPayload {
  readonly orderId: string;
  readonly stepIndex: number;
  /** The order's customer, so a shared store finds the order without its index (absent in older jobs). */
  readonly customerId?: string;
  /** When the step first found no order stored, while it looks again for a placement that lands late. */
  readonly awaitedSince?: number;
}

function isOrderStepPayload(value: unknown): value is OrderStepPayload {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate.orderId === "string" &&
    typeof candidate.stepIndex === "number" &&
    Number.isSafeInteger(candidate.stepIndex) &&
    candidate.stepIndex >= 0 &&
    (candidate.customerId === undefined || typeof candidate.customerId === "string") &&
    (candidate.awaitedSince === undefined || typeof candidate.awaitedSince === "number")
  );
}

/**
 * Throws (a configuration bug) unless the options make sense for the table:
 * a rate in [0, 1] and a failure status that is final and refunds.
 */
export function assertLifecycleOptions(options: LifecycleOptions, table: StatusTable): void {
  if (!(options.failureRate >= 0 && options.failureRate <= 1)) {
    throw new RangeError(`failureRate must be within 0..1, got ${options.failureRate}`);
  }
  if (table.get(options.failureStatus)?.class !== "failed") {
    throw new RangeError(`failureStatus ${options.failureStatus} is not a failed-class status of the table`);
  }
  if (!isFinalStatus(table, SUCCESS_STATUS)) throw new RangeError("the status table must define 20 as a final status");
  const { outcomes } = options;
  if (outcomes === undefined) return;
  const total = outcomes.reduce((sum, outcome) => sum + outcome.share, 0);
  if (outcomes.some((outcome) => !(outcome.share >= 0)) || total > 1 + SHARE_TOLERANCE) {
    throw new RangeError(`the outcome shares must be >= 0 and add up to at most 1, got ${total}`);
  }
  const notFailed = outcomes.find((outcome) => table.get(outcome.status)?.class !== "failed");
  if (notFailed !== undefined) throw new RangeError(`outcome status ${notFailed.status} is not a failed-class status`);
}

/** Shares written to 3 decimals may add up to a hair over 1. */
export const SHARE_TOLERANCE = 1e-9;

/** The failed outcome a coin in [0, 1) lands on, or undefined for success. */
function failedOutcome(options: LifecycleOptions, coin: number): OutcomeShare | undefined {
  if (options.outcomes === undefined) {
    return coin < options.failureRate ? { status: options.failureStatus, share: options.failureRate } : undefined;
  }
  let upTo = 0;
  for (const outcome of options.outcomes) {
    upTo += outcome.share;
    if (coin < upTo) return outcome;
  }
  return undefined;
}

/**
 * The default plan for a new order: one step after a sampled delay. Always
 * draws the delay first (fixed timings draw nothing) and then one failure
 * coin, so changing the rate never shifts the rest of a seeded run; an
 * outcome with its own timing then draws its delay from that.
 *
 * @example
 * createDefaultPlan({ timing: { kind: "fixed", ms: 2000 }, failureRate: 0, failureStatus: 2 }, random);
 * // { steps: [{ afterMs: 2000, status: 20 }] }
 */
export function createDefaultPlan(options: LifecycleOptions, random: Random): OutcomePlan {
  const afterMs = sampleDelay(options.timing, random);
  const outcome = failedOutcome(options, random.next());
  if (outcome === undefined) return { steps: [{ afterMs, status: SUCCESS_STATUS }] };
  const ownMs = outcome.timing === undefined ? afterMs : sampleDelay(outcome.timing, random);
  return { steps: [{ afterMs: ownMs, status: outcome.status }] };
}

/** Throws (a bug in whoever built the plan) unless every step is well formed. */
export function assertPlan(plan: OutcomePlan): void {
  for (const step of plan.steps) {
    if (!Number.isFinite(step.afterMs) || step.afterMs < 0) {
      throw new RangeError(`a planned step needs afterMs >= 0, got ${step.afterMs}`);
    }
    if (!Number.isSafeInteger(step.status) || step.status < 0) {
      throw new RangeError(`a planned step needs an integer status, got ${step.status}`);
    }
  }
}

/** How many steps at the start of the plan are due at once (applied before placeOrder returns). */
export function countImmediateSteps(plan: OutcomePlan): number {
  let count = 0;
  while (count < plan.steps.length && plan.steps[count]?.afterMs === 0) count++;
  return count;
}

// The status changes: the factory that applies the planned steps and the
// admin's transitions, and the announcing and scheduling it shares.

export interface StatusChangesDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly scheduler: Scheduler;
  readonly events: OrderEvents;
  readonly statusTable: StatusTable;
  /** Where a throwing event listener is reported; the change itself stands. */
  readonly onEventError?: ((error: unknown, order: Order) => void) | undefined;
}

export interface StatusChanges {
  /** Moves the order to `status` if the rules allow it, refunds and announces. */
  transition(orderId: string, status: number, message?: string): Promise<TransitionOutcome>;
  /**
   * Schedules a new order's first step that is not due at once, before or
   * alongside its placement: no instant then leaves a stored order with no
   * step to come (a step finding no order looks again for a while). Returns its job id,
   * for the caller to cancel when the store refuses the order. `ifAbsent`
   * leaves a waiting or running job of that step as it is.
   */
  scheduleFirst(order: Order, ifAbsent?: boolean): Promise<string | undefined>;
  /** Applies a freshly stored order's steps due at once. Returns the order as it now stands. */
  start(order: Order): Promise<Order>;
  /**
   * Starts again the lifecycle of an order found by a retry of its key while
   * it still stands as placed: the first attempt may have failed after the
   * order was stored but before its steps were applied or its first step's
   * job was kept (a Redis failover between the two). Steps due at once are
   * applied again (each a compare-and-set, so never twice) and the first
   * later step is scheduled unless its job is waiting or running.
   */
  resume(order: Order): Promise<void>;
}

/** A step's job id, one per order and step: scheduling it again leaves one job, never two. */
const stepJobId = (orderId: string, stepIndex: number): string => `step_${orderId}_${stepIndex}`;

/**
 * How long a step that finds no order keeps looking for it, and how often. The first step's job is
 * sent alongside its placement, not after it: on a shared store another process can run the job before
 * the order is stored (the placing process stalled between its two writes, or they went to two cluster
 * masters). A placement that was answered has landed well within this; one that never lands (refused,
 * or its process killed between the writes) lets the step end once it is up.
 */
const AWAIT_ORDER_MS = 10_000;
const LOOK_AGAIN_MS = 250;

/**
 * The order at its next status. Built field by field, not by spreading the
 * order: this runs for every order, and a spread of a frozen record takes
 * V8's slow cloning path.
 */
function withStatus(
  order: Order,
  status: number,
  message: string,
  updatedAt: number,
  history: Order["history"],
): Order {
  const next: { -readonly [K in keyof Order]: Order[K] } = {
    id: order.id,
    customerId: order.customerId,
    reference: order.reference,
    service: order.service,
    account: order.account,
    amountCents: order.amountCents,
    currency: order.currency,
    shortcode: order.shortcode,
    status,
    message,
    createdAt: order.createdAt,
    updatedAt,
    history,
  };
  if (order.idempotencyKey !== undefined) next.idempotencyKey = order.idempotencyKey;
  if (order.webhookFaults !== undefined) next.webhookFaults = order.webhookFaults;
  if (order.plan !== undefined) next.plan = order.plan;
  return next;
}

export function createStatusChanges(deps: StatusChangesDeps): StatusChanges {
  const { store, clock, scheduler, statusTable } = deps;
  const listeners: Listeners = {
    store,
    statusTable,
    events: deps.events,
    onEventError:
      deps.onEventError ??
      ((error: unknown, order: Order) => {
        console.error(`status change listener failed for order ${order.id}:`, error);
      }),
  };

  async function transition(orderId: string, status: number, message?: string): Promise<TransitionOutcome> {
    return transitionFrom(await store.getOrder(orderId), orderId, status, message);
  }

  /**
   * `transition`, starting from an order already read (a planned step has
   * just read it). If it is stale, the compare-and-set fails and the loop
   * reads it again; a stale order never allows a move the current one
   * refuses, since statuses only ever become more final.
   */
  async function transitionFrom(
    known: Order | undefined,
    orderId: string,
    status: number,
    message?: string,
  ): Promise<TransitionOutcome> {
    for (let order = known; ; order = await store.getOrder(orderId)) {
      if (order === undefined) return { kind: "not_found" };
      if (!isAllowedTransition(statusTable, order.status, status)) {
        return { kind: "invalid_transition", from: order.status, to: status };
      }
      const now = clock.now();
      const text = message ?? statusTable.get(status)?.message ?? String(status);
      // concat allocates the exact length; an array spread leaves room to grow in every stored order.
      const history = Object.freeze(order.history.concat([Object.freeze({ status, message: text, at: now })]));
      // Frozen, like the stored order it replaces: the store then keeps it without copying.
      const next = Object.freeze(withStatus(order, status, text, now, history));
      // The refund goes in the same atomic step as the status it follows from.
      const refund = refundsWallet(statusTable, status) && !refundsWallet(statusTable, order.status);
      // Lost the race: re-read and judge the move again against the new status.
      if (!(await store.updateOrderIf(next, order.history.length, refund))) continue;
      await announce(listeners, next, order.status, false);
      return { kind: "transitioned", order: next };
    }
  }

  /** A step the order can no longer take (an admin got there first) is skipped silently. */
  function applyStep(orderId: string, step: PlannedTransition, known: Order | undefined): Promise<TransitionOutcome> {
    return known === undefined
      ? transition(orderId, step.status, step.message)
      : transitionFrom(known, orderId, step.status, step.message);
  }

  async function runStepJob(job: Job): Promise<void> {
    if (!isOrderStepPayload(job.payload)) throw new Error(`malformed ${ORDER_STEP_JOB} payload`);
    const { orderId, stepIndex } = job.payload;
    const order = await store.getOrder(orderId, job.payload.customerId);
    if (order === undefined) return lookAgainForOrder(scheduler, clock.now(), job.payload);
    const step = order.plan?.steps[stepIndex];
    if (step === undefined) return; // the plan is done
    const outcome = await applyStep(orderId, step, order);
    if (outcome.kind === "invalid_transition") await announceAgainIfTaken(listeners, order, step);
    const following = order.plan?.steps[stepIndex + 1];
    // Counted from this step's due time, not from when it ran, so timing stays exact.
    if (following !== undefined)
      await scheduleStep(scheduler, orderId, order.customerId, stepIndex + 1, job.dueAt + following.afterMs);
  }

  scheduler.handle(ORDER_STEP_JOB, runStepJob);

  const changes: StatusChanges = {
    transition,
    scheduleFirst: (order, ifAbsent) => scheduleFirst(scheduler, order, ifAbsent),
    async resume(order) {
      if (order.history.length !== 1) return;
      await changes.start(order);
      await scheduleFirst(scheduler, order, true);
    },
    async start(order) {
      const steps = order.plan?.steps ?? [];
      const immediate = countImmediateSteps({ steps });
      // The order as its own steps left it: read back only if a step found it changed by someone else.
      let current = order;
      let exact = true;
      for (let index = 0; index < immediate; index++) {
        const step = steps[index];
        if (step === undefined) continue;
        const outcome = await applyStep(order.id, step, exact ? current : undefined);
        if (outcome.kind === "transitioned") current = outcome.order;
        else exact = false;
      }
      return exact ? current : ((await store.getOrder(order.id)) ?? current);
    },
  };
  return changes;
}

/**
 * What announcing a change needs, apart from the factory's closure: the
 * listeners, where a throwing one is reported, and the store the funding
 * wallet is read from.
 */
interface Listeners {
  readonly store: Store;
  readonly statusTable: StatusTable;
  readonly events: OrderEvents;
  readonly onEventError: (error: unknown, order: Order) => void;
}

/** The funding wallet as it stands, and the customer it was read from (listeners need not read it again). */
async function fundingOf(store: Store, order: Order): Promise<{ wallet: Wallet; customer?: Customer }> {
  const customer = await store.getCustomer(order.customerId);
  const wallet = customer?.wallets.find((candidate) => candidate.shortcode === order.shortcode);
  // The customer may have been deleted meanwhile; report an empty wallet rather than fail the change.
  const funding = wallet ?? { shortcode: order.shortcode, balanceCents: 0, currency: order.currency };
  return customer === undefined ? { wallet: funding } : { wallet: funding, customer };
}

/**
 * Tells the listeners of a stored change. `repeated`: the change was
 * stored by an earlier run of its step, which may have died before telling
 * anyone; listeners that create something for a change create it only if
 * it is not there yet.
 */
async function announce(
  { store, statusTable, events, onEventError }: Listeners,
  order: Order,
  previousStatus: number,
  repeated: boolean,
): Promise<void> {
  const funding = await fundingOf(store, order);
  const final = isFinalStatus(statusTable, order.status);
  try {
    await events.statusChanged({ order, previousStatus, final, ...funding, ...(repeated ? { repeated } : {}) });
  } catch (error) {
    // A listener cut off from the store may have created half of what it creates (a delivery without its
    // attempt's job): the caller fails, so a step is run again after its lease and announces once more.
    if (error instanceof StoreUnavailableError || error instanceof StoreNotReplicatedError) throw error;
    onEventError(error, order);
  }
}

/**
 * A step run again (its first run's process died, or Redis failed it
 * mid-way) finds its own move already stored: it announces that move
 * again, so the webhook the first run may never have created still goes
 * out. Only when the order's latest move is the step's: a later move has
 * been announced by whoever made it.
 */
async function announceAgainIfTaken(listeners: Listeners, order: Order, step: PlannedTransition): Promise<void> {
  const history = order.history;
  const latest = history[history.length - 1];
  const previous = history[history.length - 2];
  if (latest?.status !== step.status || previous === undefined) return;
  await announce(listeners, order, previous.status, true);
}

/** The step again a little later, with the time it first found no order, until `AWAIT_ORDER_MS` is up. */
async function lookAgainForOrder(scheduler: Scheduler, now: number, payload: OrderStepPayload): Promise<void> {
  const since = payload.awaitedSince ?? now;
  // Still nothing: the placement was refused or never landed, or the order was reset away.
  if (now - since >= AWAIT_ORDER_MS) return;
  const id = stepJobId(payload.orderId, payload.stepIndex);
  await scheduler.schedule({
    type: ORDER_STEP_JOB,
    dueAt: now + LOOK_AGAIN_MS,
    payload: { ...payload, awaitedSince: since },
    id,
  });
}

/** One planned step as a scheduler job; the customer id lets a shared store find the order without its index. */
function scheduleStep(
  scheduler: Scheduler,
  orderId: string,
  customerId: string,
  stepIndex: number,
  dueAt: number,
  ifAbsent = false,
): Promise<string> {
  const payload: OrderStepPayload = { orderId, stepIndex, customerId };
  return scheduler.schedule({ type: ORDER_STEP_JOB, dueAt, payload, id: stepJobId(orderId, stepIndex), ifAbsent });
}

/**
 * The first step not due at once, scheduled from the order's creation time;
 * `ifAbsent` leaves a waiting or running job of that step as it is.
 */
async function scheduleFirst(scheduler: Scheduler, order: Order, ifAbsent = false): Promise<string | undefined> {
  const steps = order.plan?.steps ?? [];
  const immediate = countImmediateSteps({ steps });
  const first = steps[immediate];
  if (first === undefined) return undefined;
  return scheduleStep(scheduler, order.id, order.customerId, immediate, order.createdAt + first.afterMs, ifAbsent);
}
