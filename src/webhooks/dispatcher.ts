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
import { setMaxListeners } from "node:events";
import { isFinalStatus, type StatusTable } from "../contract/status-codes.ts";
import type { WebhookEndpoint } from "../domain/model.ts";
import type { Clock, Job, JobPlacement, Random, Scheduler, Store } from "../domain/ports.ts";
import { createSeededRandom } from "../domain/random.ts";
import type { OrderEvents, StatusChange } from "../domain/service-types.ts";
import {
  type AttemptContext,
  type AttemptJobPayload,
  isAttemptJobPayload,
  jobIdFor,
  nextState,
  outcomeOf,
  plannedRetry,
} from "./delivery-transitions.ts";
import { deliveryIdOf, staleFollowUpId, statusMessageId } from "./delivery-ids.ts";
import { createFairLimiter } from "./fair-limiter.ts";
import { createMemoryDeliveryStore } from "./memory-delivery-store.ts";
import { buildStalePayload, buildWebhookPayload, staleEntryBefore } from "./payload.ts";
import type { Delivery, DeliveryAttempt, DeliveryKind, DeliveryStore } from "./ports.ts";
import { type PostResult, postWebhook } from "./post-webhook.ts";
import { resolveSchedule, resolveTimeout, withJitter } from "./schedule.ts";
import { generateWebhookSecret, signWebhook } from "./signing.ts";

export const WEBHOOK_ATTEMPT_JOB = "webhook.attempt";
const DEFAULT_WEBHOOK_JITTER = 0.1;
const DEFAULT_MAX_CONCURRENT_ATTEMPTS = 256;
const DEFAULT_MAX_CONCURRENT_PER_ENDPOINT = 32;
const DEFAULT_MAX_QUEUED_PER_ENDPOINT = 1000;
const USER_AGENT = "airtime-harness-webhooks/1";

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
  const { store, clock, scheduler, statusTable } = deps;
  const shared = deps.jobs?.kind === "shared";
  deps.jobs?.share(WEBHOOK_ATTEMPT_JOB);
  // On a virtual clock an attempt is stamped with its due time and takes no simulator time.
  const virtual = clock.virtual === true;
  const schedule = resolveSchedule(options.schedule);
  const timeoutMs = resolveTimeout(options.timeout);
  const jitter = options.jitter ?? DEFAULT_WEBHOOK_JITTER;
  if (!(jitter >= 0 && jitter <= 1)) throw new RangeError("jitter must be within 0..1");
  const wallNow = options.wallClock ?? (() => Date.now());
  const deliveries = options.deliveryStore ?? createMemoryDeliveryStore();
  const limiter = createFairLimiter({
    maxActive: options.maxConcurrentAttempts ?? DEFAULT_MAX_CONCURRENT_ATTEMPTS,
    maxActivePerKey: options.maxConcurrentPerEndpoint ?? DEFAULT_MAX_CONCURRENT_PER_ENDPOINT,
    maxQueuedPerKey: options.maxQueuedPerEndpoint ?? DEFAULT_MAX_QUEUED_PER_ENDPOINT,
  });
  // A stream of our own, seeded from the simulator's: jitter is drawn as network
  // answers arrive, and must not shift the ids of later orders.
  const random = createSeededRandom(Math.floor(deps.random.next() * 2 ** 32));
  const inFlight = new Set<Promise<unknown>>();
  // Closing starts no attempt; at the deadline the `closing` signal aborts the requests still out.
  let stopping = false;
  let posting = 0;
  /** Shared attempts this closing process gave back to the other processes. */
  let handedBack = 0;
  const closing = new AbortController();
  // Every attempt in flight listens on this one signal; hundreds at once are normal, not a leak.
  setMaxListeners(0, closing.signal);

  function track<T>(work: Promise<T>): Promise<T> {
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work)).catch(() => undefined);
    return work;
  }

  /**
   * Stores a new delivery and schedules its first attempt. The id is derived
   * from the change it announces, so announcing a change again finds the
   * delivery made the first time instead of making a second one. Shared
   * attempts: an announcement repeated after a process died between storing
   * the delivery and scheduling its job schedules that job, unless it exists.
   */
  async function createDelivery(
    id: string,
    fields: Omit<Delivery, "id" | "nextJobId" | "nextAttemptAt" | "scheduleIndex" | "attemptCount" | "deliveredAt">,
    dueAt: number | null,
    { scheduleFirst = true, repeated = false }: { readonly scheduleFirst?: boolean; readonly repeated?: boolean } = {},
  ): Promise<Delivery> {
    const firstJob = jobIdFor(id, 0);
    const delivery: Delivery = {
      ...fields,
      id,
      nextAttemptAt: dueAt,
      nextJobId: dueAt === null ? null : firstJob,
      scheduleIndex: 0,
      attemptCount: 0,
      deliveredAt: null,
    };
    // Stored before its job exists, so the job always finds it.
    const fresh = await deliveries.insert(delivery);
    const stored = fresh ? delivery : ((await deliveries.get(id)) ?? delivery);
    const unscheduled = fresh || (repeated && shared && stored.state === "pending" && stored.nextJobId === firstJob);
    if (stored.nextAttemptAt !== null && scheduleFirst && unscheduled) {
      await scheduleAttempt(id, 0, firstJob, stored.nextAttemptAt, !fresh);
    }
    return stored;
  }

  async function statusChanged(change: StatusChange): Promise<void> {
    const { order } = change;
    if (!change.final && options.intermediate !== true) return;
    const endpoint = (change.customer ?? (await store.getCustomer(order.customerId)))?.webhook;
    // No endpoint configured: nothing to send, nothing to show.
    if (endpoint === undefined) return;
    const faults = order.webhookFaults ?? {};
    const now = clock.now();
    // Only the first final status gets a stale follow-up, not a later reversal.
    const firstFinal = change.final && !isFinalStatus(statusTable, change.previousStatus);
    const stale = faults.staleAfterFinal === true && firstFinal ? staleEntryBefore(change, statusTable) : undefined;
    const messageId = statusMessageId(order.id, order.history.length);
    const deliveryId = deliveryIdOf(messageId);
    const announcement = { repeated: change.repeated === true };
    const fields = {
      messageId,
      kind: "status" as DeliveryKind,
      customerId: order.customerId,
      orderId: order.id,
      reference: order.reference,
      status: order.status,
      final: change.final,
      body: JSON.stringify(buildWebhookPayload(change)),
      createdAt: now,
      badSignature: faults.badSignature === true,
      ...(stale === undefined
        ? {}
        : { followUp: { status: stale.status, body: JSON.stringify(buildStalePayload(change, stale)) } }),
    };
    if (faults.drop === true) {
      await createDelivery(
        deliveryId,
        { ...fields, state: "dropped", reason: "dropped by a scenario" },
        null,
        announcement,
      );
      return;
    }
    if (endpoint.disabled === true) {
      await createDelivery(
        deliveryId,
        { ...fields, state: "disabled", reason: "the endpoint is disabled" },
        null,
        announcement,
      );
      return;
    }
    const dueAt = now + (faults.delayMs ?? 0) + withJitter(schedule[0] ?? 0, jitter, () => random.next());
    const original = await createDelivery(deliveryId, { ...fields, state: "pending" }, dueAt, announcement);
    const { followUp: _once, ...copy } = fields;
    for (let i = 1; i <= (faults.duplicates ?? 0); i++) {
      const duplicate = { ...copy, kind: "duplicate" as const, parentId: original.id, state: "pending" as const };
      await createDelivery(`${deliveryId}d${i}`, duplicate, dueAt, announcement);
    }
  }

  async function runJob(job: Job): Promise<void> {
    if (!isAttemptJobPayload(job.payload)) throw new Error(`malformed ${WEBHOOK_ATTEMPT_JOB} payload`);
    const { deliveryId, scheduleIndex } = job.payload;
    if (stopping) {
      if (shared) await handBack(deliveryId, scheduleIndex, job.id, job.dueAt);
      return;
    }
    const delivery = await deliveries.get(deliveryId);
    if (delivery === undefined || delivery.state !== "pending") return;
    // Superseded (redelivery, webhook before response), or run again after its attempt was recorded.
    if (delivery.nextJobId !== job.id) return;
    const work = track(
      attemptScheduled(delivery, { trigger: "schedule", scheduledAt: job.dueAt, scheduleIndex, jobId: job.id }),
    );
    // Shared: the job holds its lease until the attempt is recorded. Local: the scheduler moves on while the request is out.
    if (shared) await work;
    else scheduler.track(work, horizonOf(delivery, job.dueAt, scheduleIndex));
  }

  /**
   * Shared attempts: a claimed job this closing process will not run goes
   * back to the shared scheduler for another process. Its due time moves on
   * by at least 1 ms: the scheduler then sees a job scheduled again, not the
   * one claimed, and keeps it when the claim completes.
   */
  async function handBack(deliveryId: string, scheduleIndex: number, jobId: string, dueAt: number): Promise<void> {
    handedBack += 1;
    await scheduleAttempt(deliveryId, scheduleIndex, jobId, Math.max(clock.now(), dueAt + 1));
  }

  /** `ifAbsent`: leaves a job of that id that is still waiting or running alone. */
  async function scheduleAttempt(
    deliveryId: string,
    scheduleIndex: number,
    id: string,
    dueAt: number,
    ifAbsent = false,
  ): Promise<void> {
    const payload: AttemptJobPayload = { deliveryId, scheduleIndex };
    await scheduler.schedule({ id, type: WEBHOOK_ATTEMPT_JOB, dueAt, payload, ...(ifAbsent ? { ifAbsent } : {}) });
  }

  /**
   * The earliest simulator time an attempt due at `dueAt` can schedule
   * anything: its retry (the shortest jittered delay; Retry-After only
   * lengthens it), or at once when a stale follow-up may be sent after it.
   */
  function horizonOf(delivery: Delivery, dueAt: number, scheduleIndex: number): number {
    if (delivery.followUp !== undefined) return dueAt;
    const delay = schedule[scheduleIndex + 1];
    return delay === undefined ? Number.POSITIVE_INFINITY : dueAt + Math.floor(delay * (1 - jitter));
  }

  async function attemptScheduled(delivery: Delivery, context: AttemptContext): Promise<void> {
    const endpoint = (await store.getCustomer(delivery.customerId))?.webhook;
    if (endpoint === undefined || endpoint.disabled === true) {
      await disableDelivery(delivery, context, unusableReason(endpoint));
      return;
    }
    await attempt(delivery, endpoint, context);
  }

  /** A scheduled attempt that will not be made: its delivery stops, saying why. */
  async function disableDelivery(delivery: Delivery, context: AttemptContext, reason: string): Promise<void> {
    await deliveries.update(delivery.id, (current) =>
      current.state === "pending" && current.nextJobId === context.jobId
        ? { ...current, state: "disabled", reason, nextAttemptAt: null, nextJobId: null }
        : current,
    );
  }

  /**
   * One attempt under the caps, recorded, and its consequence for the
   * delivery. It waits for a slot in its endpoint's queue; shed from the
   * queue, it is recorded as a failed attempt (`queue_overflow`) that never
   * reached the network, or, when a 410 cancelled the queue, stops its
   * delivery.
   */
  async function attempt(
    delivery: Delivery,
    endpoint: WebhookEndpoint,
    context: AttemptContext,
  ): Promise<DeliveryAttempt | undefined> {
    const slot = await limiter.run(endpointKey(delivery.customerId, endpoint.url), async () => {
      if (stopping) return undefined;
      // Read again: a 410 or an admin change may have come while this attempt waited.
      const current = (await store.getCustomer(delivery.customerId))?.webhook;
      if (current === undefined || current.disabled === true) {
        await disableDelivery(delivery, context, unusableReason(current));
        return undefined;
      }
      return send(delivery, current, context);
    });
    if (slot.kind === "ran") {
      if (slot.value === undefined && stopping && shared && context.jobId !== null && context.scheduleIndex !== null) {
        await handBack(delivery.id, context.scheduleIndex, context.jobId, context.scheduledAt);
      }
      return slot.value;
    }
    if (slot.reason === "cancelled") {
      await disableDelivery(delivery, context, "cancelled while queued: the endpoint answered 410 Gone");
      return undefined;
    }
    const overflow: PostResult = { kind: "error", error: "queue_overflow", latencyMs: 0 };
    return record(delivery, endpoint, context, overflow, virtual ? context.scheduledAt : clock.now(), wallNow(), {});
  }

  async function send(
    delivery: Delivery,
    endpoint: WebhookEndpoint,
    context: AttemptContext,
  ): Promise<DeliveryAttempt | undefined> {
    const sentAt = virtual ? context.scheduledAt : clock.now();
    const sentAtWall = wallNow();
    // A wrong secret nobody holds: the receiver must reject it.
    const secrets = delivery.badSignature ? [generateWebhookSecret()] : endpoint.secrets;
    const requestHeaders = {
      "content-type": "application/json",
      "user-agent": USER_AGENT,
      ...signWebhook({
        id: delivery.messageId,
        timestampSeconds: Math.floor(sentAtWall / 1000),
        body: delivery.body,
        secrets,
      }),
    };
    posting += 1;
    const posted = await postWebhook({
      url: endpoint.url,
      headers: requestHeaders,
      body: delivery.body,
      timeoutMs,
      signal: closing.signal,
      wallNow,
    }).finally(() => {
      posting -= 1;
    });
    const cutOff = posted.kind === "error" && posted.error === "aborted" && closing.signal.aborted;
    const result: PostResult = cutOff ? { ...posted, error: "shutdown" } : posted;
    return record(delivery, endpoint, context, result, sentAt, sentAtWall, requestHeaders);
  }

  /** Stores an attempt's result and what follows from it: the retry, a disabled endpoint, a stale follow-up. */
  async function record(
    delivery: Delivery,
    endpoint: WebhookEndpoint,
    context: AttemptContext,
    result: PostResult,
    sentAt: number,
    sentAtWall: number,
    requestHeaders: Readonly<Record<string, string>>,
  ): Promise<DeliveryAttempt | undefined> {
    const outcome = outcomeOf(result);
    // The time the attempt took as the simulator clock saw it, never more than it really
    // took; none on a virtual clock, whatever else the clock ran meanwhile.
    const finishedAt = virtual ? sentAt : sentAt + Math.max(0, Math.min(clock.now() - sentAt, result.latencyMs));
    const retryDelay = retryDelayAfter(context, result);
    const before = delivery.state;
    // The retry's job exists before the delivery names it: a process killed in between leaves a
    // job the delivery ignores, never a delivery waiting for a job nobody scheduled. A closing
    // dispatcher schedules nothing more (the delivery stays pending with its next time), unless
    // its attempts are shared: then another process makes the retry.
    const retry = plannedRetry(delivery.id, context, outcome, finishedAt, retryDelay);
    const scheduled = retry !== undefined && (!stopping || shared);
    if (scheduled) await scheduleAttempt(delivery.id, retry.scheduleIndex, retry.jobId, retry.dueAt);
    const updated = await deliveries.update(delivery.id, (current) =>
      nextState(current, context, outcome, finishedAt, retryDelay, schedule.length),
    );
    // Delivered, disabled or superseded meanwhile: the retry is not wanted.
    if (scheduled && updated?.nextJobId !== retry.jobId) await scheduler.cancel(retry.jobId);
    // Reset away while the request was out.
    if (updated === undefined) return undefined;
    const attemptRecord: DeliveryAttempt = {
      deliveryId: delivery.id,
      messageId: delivery.messageId,
      customerId: delivery.customerId,
      orderId: delivery.orderId,
      reference: delivery.reference,
      number: updated.attemptCount,
      trigger: context.trigger,
      scheduledAt: context.scheduledAt,
      sentAt,
      sentAtWall,
      url: endpoint.url,
      requestHeaders,
      requestBody: delivery.body,
      responseStatus: result.kind === "response" ? result.status : null,
      error: result.kind === "error" ? result.error : null,
      latencyMs: result.latencyMs,
      outcome,
      ...(result.kind === "response" && result.retryAfterMs !== undefined ? { retryAfterMs: result.retryAfterMs } : {}),
    };
    await deliveries.addAttempt(attemptRecord);
    if (outcome === "gone") {
      await disableEndpoint(delivery.customerId, endpoint.url);
      // Attempts already waiting for this endpoint are not sent either.
      limiter.cancelQueued(endpointKey(delivery.customerId, endpoint.url));
    }
    const settled = updated.state === "delivered" || updated.state === "failed";
    if (before === "pending" && settled && updated.followUp !== undefined) await sendFollowUp(updated, finishedAt);
    return attemptRecord;
  }

  function retryDelayAfter(context: AttemptContext, result: PostResult): number | undefined {
    if (context.scheduleIndex === null) return undefined;
    const delay = schedule[context.scheduleIndex + 1];
    if (delay === undefined) return undefined;
    const jittered = withJitter(delay, jitter, () => random.next());
    const asked = result.kind === "response" ? result.retryAfterMs : undefined;
    // Retry-After only ever makes the wait longer than the schedule's.
    return asked !== undefined && asked > jittered ? asked : jittered;
  }

  /**
   * Starts the stale follow-up at once rather than through the scheduler, so it
   * reaches the receiver within the same `advance()` as the final message it
   * follows; its retries, if any, are scheduled as usual.
   */
  async function sendFollowUp(parent: Delivery, now: number): Promise<void> {
    const followUp = parent.followUp;
    if (followUp === undefined) return;
    const stale = await createDelivery(
      staleFollowUpId(parent.id),
      {
        messageId: staleFollowUpId(parent.messageId),
        kind: "stale",
        parentId: parent.id,
        customerId: parent.customerId,
        orderId: parent.orderId,
        reference: parent.reference,
        status: followUp.status,
        final: false,
        body: followUp.body,
        createdAt: now,
        badSignature: parent.badSignature,
        state: "pending",
      },
      now,
      // Shared: a job like any other, so a process killed now leaves it to a survivor.
      { scheduleFirst: shared },
    );
    if (shared) return;
    const context: AttemptContext = { trigger: "schedule", scheduledAt: now, scheduleIndex: 0, jobId: stale.nextJobId };
    // Not awaited: it runs after the final message's attempt has finished; settle() still waits for it.
    scheduler.track(track(attemptScheduled(stale, context)), horizonOf(stale, now, 0));
  }

  // Both change the endpoint alone through `patchCustomer`: writing the whole customer back would
  // also write the wallets as read, undoing a debit made between the read and the write.
  async function disableEndpoint(customerId: string, url: string): Promise<void> {
    const customer = await store.getCustomer(customerId);
    // Only the endpoint that answered 410: the URL may have been changed meanwhile.
    if (customer?.webhook === undefined || customer.webhook.url !== url) return;
    await store.patchCustomer(customerId, { webhook: { ...customer.webhook, disabled: true } });
  }

  async function enableEndpoint(customerId: string): Promise<WebhookEndpoint | undefined> {
    const customer = await store.getCustomer(customerId);
    if (customer?.webhook === undefined) return undefined;
    const { disabled: _cleared, ...webhook } = customer.webhook;
    await store.patchCustomer(customerId, { webhook });
    return webhook;
  }

  scheduler.handle(WEBHOOK_ATTEMPT_JOB, runJob);

  async function shutdown(deadline?: AbortSignal): Promise<WebhookCloseReport> {
    stopping = true;
    const given = untilAborted(deadline);
    while (inFlight.size > 0 && !(deadline?.aborted ?? true)) {
      await Promise.race([Promise.allSettled([...inFlight]), given]);
    }
    const attemptsCutOff = posting;
    closing.abort();
    while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    // Shared: what is pending is the other processes' to make; only what this one handed back is counted.
    const undelivered = shared ? handedBack : (await deliveries.list({ state: "pending" })).length;
    return { attemptsCutOff, undelivered };
  }

  return {
    events: { statusChanged },
    deliveries,
    schedule,
    timeoutMs,
    async sendNow(orderId) {
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
        runs.push(track(attemptScheduled(delivery, context)));
      }
      await Promise.all(runs);
    },
    async redeliver(deliveryId, redeliverOptions = {}) {
      if (stopping) return { kind: "closed" };
      const delivery = await deliveries.get(deliveryId);
      if (delivery === undefined) return { kind: "not_found" };
      let endpoint = (await store.getCustomer(delivery.customerId))?.webhook;
      if (endpoint === undefined) return { kind: "no_endpoint" };
      if (endpoint.disabled === true) {
        if (redeliverOptions.enable !== true) return { kind: "endpoint_disabled" };
        endpoint = (await enableEndpoint(delivery.customerId)) ?? endpoint;
      }
      const context: AttemptContext = {
        trigger: "redeliver",
        scheduledAt: clock.now(),
        scheduleIndex: null,
        jobId: null,
      };
      const made = await track(attempt(delivery, endpoint, context));
      const updated = await deliveries.get(deliveryId);
      if (updated === undefined) return { kind: "not_found" };
      // Not made: the dispatcher closed, or a 410 disabled the endpoint while the attempt waited.
      if (made === undefined) return stopping ? { kind: "closed" } : { kind: "endpoint_disabled" };
      return { kind: "attempted", delivery: updated, attempt: made };
    },
    async settle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    async resume() {
      for (const delivery of await deliveries.list({ state: "pending" })) {
        if (delivery.nextJobId === null || delivery.nextAttemptAt === null) continue;
        await scheduleAttempt(delivery.id, delivery.scheduleIndex, delivery.nextJobId, delivery.nextAttemptAt);
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

/** One queue per customer endpoint: customers sharing a host never share a queue or its cap. */
function endpointKey(customerId: string, url: string): string {
  return `${customerId} ${url}`;
}

/** Resolves when `signal` aborts; never without one. */
function untilAborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) resolve();
    else signal?.addEventListener("abort", () => resolve(), { once: true });
  });
}

function unusableReason(endpoint: WebhookEndpoint | undefined): string {
  return endpoint === undefined ? "the customer has no webhook endpoint" : "the endpoint is disabled";
}
