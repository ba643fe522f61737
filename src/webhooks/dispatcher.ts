/**
 * Webhook delivery: a message for every final status (and reversal), signed
 * with Standard Webhooks headers, retried on a schedule on the simulator
 * clock, every attempt recorded.
 *
 * Attempts run as scheduler jobs (`webhook.attempt`, JSON payload), so a
 * persistent scheduler keeps them across restarts. A job only *starts* the
 * HTTP request and returns: a slow receiver never holds up the scheduler or
 * other deliveries. The request is tracked with the earliest time its
 * answer can schedule a retry, so a virtual clock runs the retries due in
 * the same advance, in time order, without waiting on requests whose
 * retries fall later. `settle()` awaits the requests started so far.
 *
 * With attempts on a scheduler shared by several processes (leased jobs on
 * Redis, a `shared` job placement), a job instead holds its lease until its
 * attempt is recorded and its retry scheduled: a process killed mid-attempt
 * leaves the job leased, and a survivor makes the attempt once the lease
 * runs out. The delivery's `nextJobId` tells a stale or repeated job from
 * the one its delivery waits for, so a slot is attempted once per run of
 * its job, on whichever process claimed it.
 */
import { randomUUID } from "node:crypto";
import { compileRenderer, type DialectRenderer } from "../contract/provider-profile/render.ts";
import type { StatusTable } from "../contract/status-codes.ts";
import type { Clock, Job, JobPlacement, Random, Scheduler, Store } from "../domain/ports.ts";
import { createSeededRandom } from "../domain/random.ts";
import type { OrderEvents } from "../domain/service-types.ts";
import { createAnnouncer } from "./announce.ts";
import { type Attempts, createAttempts } from "./attempt.ts";
import { createAttemptPlacement, horizonOf, scheduleAttempt, WEBHOOK_ATTEMPT_JOB } from "./attempt-jobs.ts";
import { type AttemptContext, isAttemptJobPayload } from "./delivery-transitions.ts";
import { createFlights, type DispatchKit } from "./dispatch-kit.ts";
import { createFairLimiter } from "./fair-limiter.ts";
import { createMemoryDeliveryStore } from "./memory-delivery-store.ts";
import type { Delivery, DeliveryAttempt, DeliveryStore } from "./ports.ts";
import { resolveSchedule, resolveTimeout } from "./schedule.ts";
import { enableEndpoint } from "./webhook-endpoints.ts";

const DEFAULT_WEBHOOK_JITTER = 0.1;
const DEFAULT_MAX_CONCURRENT_ATTEMPTS = 256;
const DEFAULT_MAX_CONCURRENT_PER_ENDPOINT = 32;
const DEFAULT_MAX_QUEUED_PER_ENDPOINT = 1000;
/** How soon a retry's job that its delivery does not name yet looks again. */
const NOT_YET_NAMED_RECHECK_MS = 250;

export interface WebhookDispatcherOptions {
  /** Delay before each attempt (ms list or text like `0,100ms,1s`); default Standard Webhooks' example. */
  readonly schedule?: readonly number[] | string | undefined;
  /** Per-attempt timeout (ms or text like `500ms`); default 15 s. */
  readonly timeout?: number | string | undefined;
  /** Relative jitter on each retry delay, 0..1 (0.1 = ±10 %); default 0.1. Drawn from the seeded source. */
  readonly jitter?: number | undefined;
  /** Also send intermediate (pending-class) statuses; default false. */
  readonly intermediate?: boolean | undefined;
  readonly deliveryStore?: DeliveryStore | undefined;
  /** Wall clock for `webhook-timestamp` and latencies; injectable for tests. */
  readonly wallClock?: (() => number) | undefined;
  /** Attempts in flight at once, all endpoints together; default 256. Freed slots go to endpoints in turn. */
  readonly maxConcurrentAttempts?: number | undefined;
  /** Attempts in flight at once to one customer's endpoint; default 32. */
  readonly maxConcurrentPerEndpoint?: number | undefined;
  /** Attempts waiting for a slot, per endpoint; one more sheds the oldest as a failed `queue_overflow` attempt. Default 1000. */
  readonly maxQueuedPerEndpoint?: number | undefined;
}

/** The simulator ports the dispatcher needs (a subset of `SimulatorContext`). */
export interface WebhookDispatcherDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly scheduler: Scheduler;
  readonly random: Random;
  readonly statusTable: StatusTable;
  /** The provider's dialect webhooks are written and signed in; default our spec's (Standard Webhooks). */
  readonly dialect?: DialectRenderer | undefined;
  /** Where attempt jobs run (default: this process's scheduler). */
  readonly jobs?: JobPlacement;
}

export type RedeliverOutcome =
  | { readonly kind: "attempted"; readonly delivery: Delivery; readonly attempt: DeliveryAttempt }
  | { readonly kind: "not_found" }
  | { readonly kind: "no_endpoint" }
  | { readonly kind: "endpoint_disabled" }
  | { readonly kind: "closed" };

export interface WebhookDispatcher {
  /** Subscribe the simulator's status changes here. */
  readonly events: OrderEvents;
  readonly deliveries: DeliveryStore;
  /** The resolved retry schedule, ms. */
  readonly schedule: readonly number[];
  readonly timeoutMs: number;
  /** Sends one order's not-yet-attempted deliveries now and waits for the answers (webhook before response). */
  sendNow(orderId: string): Promise<void>;
  /** One extra attempt now, awaited. `enable` re-enables an endpoint disabled by a 410. */
  redeliver(deliveryId: string, options?: { readonly enable?: boolean }): Promise<RedeliverOutcome>;
  /** Resolves when every attempt started so far has finished. */
  settle(): Promise<void>;
  /** Schedules the next attempt of every pending delivery again (after deliveries were loaded from a state file). */
  resume(): Promise<void>;
  /** Forgets one customer's deliveries (or all) and cancels their scheduled attempts. */
  reset(customerId?: string): Promise<void>;
  /**
   * Starts no more attempts and waits for those in flight until `deadline`
   * aborts (at once without one), then aborts them: each is recorded as a
   * failed attempt with the error `shutdown`. Resolves to what was left.
   */
  shutdown(deadline?: AbortSignal): Promise<WebhookCloseReport>;
  /** `shutdown()` without a deadline: aborts requests in flight and starts no more. */
  close(): Promise<void>;
}

/** What a closing dispatcher left undone. */
export interface WebhookCloseReport {
  /** Attempts whose request was still out at the deadline, recorded as failed (`shutdown`). */
  readonly attemptsCutOff: number;
  /** Deliveries still pending: their next attempt was not made. */
  readonly undelivered: number;
}

/**
 * Creates the dispatcher and registers its job handler on the scheduler.
 *
 * @example
 * const dispatcher = createWebhookDispatcher(context, { schedule: "0,100ms,1s", timeout: "500ms", jitter: 0 });
 * const service = createAirtimeService({ ...deps, events: dispatcher.events });
 */
export function createWebhookDispatcher(
  deps: WebhookDispatcherDeps,
  options: WebhookDispatcherOptions = {},
): WebhookDispatcher {
  const kit = dispatchKitOf(deps, options);
  const { scheduler, deliveries, placement, flights, retry } = kit;
  const announcer = createAnnouncer(kit);
  const { attemptScheduled, attempt } = createAttempts(kit, announcer);

  async function runJob(job: Job): Promise<void> {
    if (!isAttemptJobPayload(job.payload)) throw new Error(`malformed ${WEBHOOK_ATTEMPT_JOB} payload`);
    const { deliveryId, scheduleIndex } = job.payload;
    if (flights.stopping) {
      await placement.giveUp({ jobId: job.id, dueAt: job.dueAt, deliveryId, scheduleIndex });
      return;
    }
    const delivery = await deliveries.get(deliveryId);
    if (delivery === undefined || delivery.state !== "pending") return;
    // Superseded (redelivery, webhook before response), or run again after its attempt was recorded.
    if (delivery.nextJobId !== job.id) {
      // A retry's job can fall due before the attempt that scheduled it names it on the delivery (that
      // process stalled, or died and its attempt runs again): it looks again later instead of being dropped.
      if (scheduleIndex > delivery.scheduleIndex) {
        const dueAt = Math.max(kit.clock.now(), job.dueAt) + NOT_YET_NAMED_RECHECK_MS;
        await scheduleAttempt(scheduler, { id: job.id, dueAt, deliveryId, scheduleIndex });
      }
      return;
    }
    const context: AttemptContext = { trigger: "schedule", scheduledAt: job.dueAt, scheduleIndex, jobId: job.id };
    await placement.runJob(
      flights.track(attemptScheduled(delivery, context)),
      horizonOf(delivery, job.dueAt, scheduleIndex, retry),
    );
  }

  scheduler.handle(WEBHOOK_ATTEMPT_JOB, runJob);

  async function shutdown(deadline?: AbortSignal): Promise<WebhookCloseReport> {
    const { cutOff } = await flights.land(deadline);
    return { attemptsCutOff: cutOff, undelivered: await placement.undelivered() };
  }

  return {
    events: { statusChanged: announcer.statusChanged },
    deliveries,
    schedule: retry.schedule,
    timeoutMs: kit.timeoutMs,
    sendNow: (orderId) => sendNow(kit, attemptScheduled, orderId),
    redeliver: (deliveryId, redeliverOptions = {}) => redeliver(kit, attempt, deliveryId, redeliverOptions),
    settle: () => flights.settle(),
    async resume() {
      for (const delivery of await deliveries.list({ state: "pending" })) {
        if (delivery.nextJobId === null || delivery.nextAttemptAt === null) continue;
        const { id, nextJobId, nextAttemptAt, scheduleIndex } = delivery;
        await scheduleAttempt(scheduler, { id: nextJobId, dueAt: nextAttemptAt, deliveryId: id, scheduleIndex });
      }
    },
    async reset(customerId) {
      const doomed = await deliveries.list(customerId === undefined ? {} : { customerId });
      for (const delivery of doomed) {
        if (delivery.nextJobId !== null) await scheduler.cancel(delivery.nextJobId);
      }
      await deliveries.reset(customerId);
    },
    shutdown,
    async close() {
      await shutdown();
    },
  };
}

/** The options resolved, and the parts every step of the dispatcher shares. */
function dispatchKitOf(deps: WebhookDispatcherDeps, options: WebhookDispatcherOptions): DispatchKit {
  const jitter = options.jitter ?? DEFAULT_WEBHOOK_JITTER;
  if (!(jitter >= 0 && jitter <= 1)) throw new RangeError("jitter must be within 0..1");
  const deliveries = options.deliveryStore ?? createMemoryDeliveryStore();
  return {
    store: deps.store,
    clock: deps.clock,
    scheduler: deps.scheduler,
    statusTable: deps.statusTable,
    dialect: deps.dialect ?? compileRenderer(undefined, { newUuid: randomUUID }),
    deliveries,
    placement: createAttemptPlacement(deps.jobs, { scheduler: deps.scheduler, clock: deps.clock, deliveries }),
    retry: { schedule: resolveSchedule(options.schedule), jitter },
    // A stream of our own, seeded from the simulator's: jitter is drawn as network
    // answers arrive, and must not shift the ids of later orders.
    random: createSeededRandom(Math.floor(deps.random.next() * 2 ** 32)),
    wallNow: options.wallClock ?? (() => Date.now()),
    timeoutMs: resolveTimeout(options.timeout),
    intermediate: options.intermediate === true,
    limiter: createFairLimiter({
      maxActive: options.maxConcurrentAttempts ?? DEFAULT_MAX_CONCURRENT_ATTEMPTS,
      maxActivePerKey: options.maxConcurrentPerEndpoint ?? DEFAULT_MAX_CONCURRENT_PER_ENDPOINT,
      maxQueuedPerKey: options.maxQueuedPerEndpoint ?? DEFAULT_MAX_QUEUED_PER_ENDPOINT,
    }),
    flights: createFlights(),
  };
}

/**
 * Webhook before response: takes each of an order's first attempts away
 * from the scheduler and makes it now, so the order's answer waits for it.
 */
async function sendNow(
  kit: DispatchKit,
  attemptScheduled: Attempts["attemptScheduled"],
  orderId: string,
): Promise<void> {
  const { deliveries, scheduler, clock, flights } = kit;
  const waiting = await deliveries.list({ orderId, state: "pending" });
  const runs: Promise<unknown>[] = [];
  for (const delivery of waiting) {
    if (delivery.attemptCount > 0 || delivery.nextJobId === null) continue;
    // Take the first attempt away from the scheduler; if it already ran, leave it be.
    if (!(await scheduler.cancel(delivery.nextJobId))) continue;
    const context: AttemptContext = {
      trigger: "before_response",
      scheduledAt: clock.now(),
      scheduleIndex: delivery.scheduleIndex,
      jobId: delivery.nextJobId,
    };
    runs.push(flights.track(attemptScheduled(delivery, context)));
  }
  await Promise.all(runs);
}

/** An admin's extra attempt, made now and awaited; `enable` first turns an endpoint disabled by a 410 back on. */
async function redeliver(
  kit: DispatchKit,
  attempt: Attempts["attempt"],
  deliveryId: string,
  redeliverOptions: { readonly enable?: boolean },
): Promise<RedeliverOutcome> {
  const { deliveries, store, clock, flights } = kit;
  if (flights.stopping) return { kind: "closed" };
  const delivery = await deliveries.get(deliveryId);
  if (delivery === undefined) return { kind: "not_found" };
  let endpoint = (await store.getCustomer(delivery.customerId))?.webhook;
  if (endpoint === undefined) return { kind: "no_endpoint" };
  if (endpoint.disabled === true) {
    if (redeliverOptions.enable !== true) return { kind: "endpoint_disabled" };
    endpoint = (await enableEndpoint(store, delivery.customerId)) ?? endpoint;
  }
  const context: AttemptContext = {
    trigger: "redeliver",
    scheduledAt: clock.now(),
    scheduleIndex: null,
    jobId: null,
  };
  const made = await flights.track(attempt(delivery, endpoint, context));
  const updated = await deliveries.get(deliveryId);
  if (updated === undefined) return { kind: "not_found" };
  // Not made: the dispatcher closed, or a 410 disabled the endpoint while the attempt waited.
  if (made === undefined) return flights.stopping ? { kind: "closed" } : { kind: "endpoint_disabled" };
  return { kind: "attempted", delivery: updated, attempt: made };
}
