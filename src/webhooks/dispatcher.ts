/**
 * Webhook delivery, one component: a message for every final status (and
 * reversal), signed as the provider's profile says (Standard Webhooks by
 * default), retried on a schedule on the simulator clock, every attempt
 * recorded. It reads as the message travels:
 *
 * 1. announce: a status change becomes deliveries, with what a scenario
 *    asked of it (dropped, delayed, duplicated, a bad signature, a stale
 *    follow-up); each delivery is stored, then its first attempt scheduled;
 * 2. attempt: one delivery sent once, under the fair limiter's caps;
 * 3. record: its result stored, its retry scheduled, and what follows from
 *    it: an endpoint a 410 turns off, a stale follow-up after the final
 *    message.
 *
 * What an attempt's result does to a delivery, the schedule and the ids are
 * pure rules in files of their own (`delivery-transitions.ts`,
 * `schedule.ts`, `delivery-ids.ts`). Where attempt jobs run, this process's
 * scheduler or one several processes share, is the placement near the end
 * of this file: each way the two differ is one named member of it, not a
 * branch in each step. The fair limiter, the caps on attempts in flight that
 * only the dispatcher admits attempts through, closes the file.
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
import { setMaxListeners } from "node:events";
import { isoTime } from "../contract/iso-time.ts";
import { compileRenderer, type DialectRenderer } from "../contract/provider-profile/render.ts";
import { isFinalStatus, type StatusTable } from "../contract/status-codes.ts";
import type { WebhookEndpoint } from "../domain/model.ts";
import type { RetentionGuard } from "../domain/order-retention.ts";
import type { Clock, Job, JobPlacement, Random, Scheduler, Store } from "../domain/ports.ts";
import { createSeededRandom } from "../domain/ids.ts";
import type { OrderEvents, StatusChange } from "../domain/service-types.ts";
import { deliveryIdOf, staleFollowUpId, statusMessageId } from "./delivery-ids.ts";
import {
  type AttemptContext,
  type AttemptJobPayload,
  horizonOf,
  isAttemptJobPayload,
  jobIdFor,
  nextState,
  outcomeOf,
  plannedRetry,
  type RetryPolicy,
  retryDelay,
  withJitter,
} from "./delivery-transitions.ts";
import { buildStalePayload, buildWebhookPayload, staleEntryBefore } from "./payload.ts";
import type { Delivery, DeliveryAttempt, DeliveryStore } from "./ports.ts";
import { type PostResult, postWebhook } from "./post-webhook.ts";
import { generateWebhookSecret } from "./signing.ts";
import { type WebhookDispatcherOptions, webhookSettings } from "./webhook-settings.ts";

/** The scheduler job type of an attempt; its payload is plain JSON (`AttemptJobPayload`). */
export const WEBHOOK_ATTEMPT_JOB = "webhook.attempt";

/** How soon a retry's job that its delivery does not name yet looks again. */
const NOT_YET_NAMED_RECHECK_MS = 250;
const USER_AGENT = "airtime-harness-webhooks/1";

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
  /**
   * The webhooks' say in the order cap: an order with a delivery still
   * pending (or whose status change is still being announced) is never
   * evicted, and an evicted order's deliveries and attempts go with it.
   */
  readonly retention: RetentionGuard;
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

/** A delivery's own fields, before the dispatcher gives it its schedule. */
type DeliveryFields = Omit<
  Delivery,
  "id" | "nextJobId" | "nextAttemptAt" | "scheduleIndex" | "attemptCount" | "deliveredAt"
>;

/** One attempt as it was made: what was sent, where and when, and what came back. */
interface Attempt {
  readonly delivery: Delivery;
  readonly endpoint: WebhookEndpoint;
  readonly context: AttemptContext;
  /** Simulator time it was sent; on a virtual clock its due time, since an attempt takes no simulator time. */
  readonly sentAt: number;
  readonly sentAtWall: number;
  readonly requestHeaders: Readonly<Record<string, string>>;
  readonly result: PostResult;
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
  return new WebhookSender(deps, options);
}

class WebhookSender implements WebhookDispatcher {
  readonly events: OrderEvents;
  readonly retention: RetentionGuard;
  readonly deliveries: DeliveryStore;
  readonly schedule: readonly number[];
  readonly timeoutMs: number;

  private readonly store: Store;
  private readonly clock: Clock;
  private readonly scheduler: Scheduler;
  private readonly statusTable: StatusTable;
  /** Writes and signs every webhook in the provider's dialect. */
  private readonly dialect: DialectRenderer;
  private readonly placement: AttemptPlacement;
  private readonly retry: RetryPolicy;
  /** The dispatcher's own stream: jitter is drawn as answers arrive and must not shift the ids of later orders. */
  private readonly random: Random;
  /** Wall clock for `webhook-timestamp` and latencies. */
  private readonly wallNow: () => number;
  /** Also announce intermediate (pending-class) statuses. */
  private readonly intermediate: boolean;
  private readonly limiter: FairLimiter;

  /** Attempts, announcements and follow-ups in flight: what `settle()` and closing wait for. */
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Aborts the requests still out at the closing deadline. */
  private readonly closing = new AbortController();
  /** True once closing began: no attempt starts. */
  private stopping = false;
  /** Requests on the network right now (what a deadline cuts off). */
  private posting = 0;
  /** order id → status changes of it being announced now: the order cap leaves such an order alone. */
  private readonly announcing = new Map<string, number>();

  constructor(deps: WebhookDispatcherDeps, options: WebhookDispatcherOptions) {
    const settings = webhookSettings(options);
    this.store = deps.store;
    this.clock = deps.clock;
    this.scheduler = deps.scheduler;
    this.statusTable = deps.statusTable;
    this.dialect = deps.dialect ?? compileRenderer(undefined, { newUuid: randomUUID });
    this.deliveries = settings.deliveryStore;
    this.placement = createAttemptPlacement(deps.jobs, {
      scheduler: deps.scheduler,
      clock: deps.clock,
      deliveries: this.deliveries,
    });
    this.retry = { schedule: settings.schedule, jitter: settings.jitter };
    this.schedule = this.retry.schedule;
    // A stream of our own, seeded from the simulator's: jitter is drawn as network
    // answers arrive, and must not shift the ids of later orders.
    this.random = createSeededRandom(Math.floor(deps.random.next() * 2 ** 32));
    this.wallNow = settings.wallClock;
    this.timeoutMs = settings.timeoutMs;
    this.intermediate = settings.intermediate;
    this.limiter = createFairLimiter({
      maxActive: settings.maxConcurrentAttempts,
      maxActivePerKey: settings.maxConcurrentPerEndpoint,
      maxQueuedPerKey: settings.maxQueuedPerEndpoint,
    });
    // Every attempt in flight listens on this one signal; hundreds at once are normal, not a leak.
    setMaxListeners(0, this.closing.signal);
    this.events = { statusChanged: (change) => this.statusChanged(change) };
    this.retention = {
      canEvict: (order) => this.canEvict(order.id),
      evicted: (orders) => this.deliveries.removeOrders(orders.map((order) => order.id)),
    };
    this.scheduler.handle(WEBHOOK_ATTEMPT_JOB, (job) => this.runJob(job));
  }

  // ── the dispatcher's face ──────────────────────────────────────────────

  /**
   * Webhook before response: takes each of an order's first attempts away
   * from the scheduler and makes it now, so the order's answer waits for it.
   */
  async sendNow(orderId: string): Promise<void> {
    const waiting = await this.deliveries.list({ orderId, state: "pending" });
    const runs: Promise<unknown>[] = [];
    for (const delivery of waiting) {
      if (delivery.attemptCount > 0 || delivery.nextJobId === null) continue;
      // Take the first attempt away from the scheduler; if it already ran, leave it be.
      if (!(await this.scheduler.cancel(delivery.nextJobId))) continue;
      const context: AttemptContext = {
        trigger: "before_response",
        scheduledAt: this.clock.now(),
        scheduleIndex: delivery.scheduleIndex,
        jobId: delivery.nextJobId,
      };
      runs.push(this.track(this.attemptScheduled(delivery, context)));
    }
    await Promise.all(runs);
  }

  /** An admin's extra attempt, made now and awaited; `enable` first turns an endpoint disabled by a 410 back on. */
  async redeliver(deliveryId: string, options: { readonly enable?: boolean } = {}): Promise<RedeliverOutcome> {
    if (this.stopping) return { kind: "closed" };
    const delivery = await this.deliveries.get(deliveryId);
    if (delivery === undefined) return { kind: "not_found" };
    let endpoint = (await this.store.getCustomer(delivery.customerId))?.webhook;
    if (endpoint === undefined) return { kind: "no_endpoint" };
    if (endpoint.disabled === true) {
      if (options.enable !== true) return { kind: "endpoint_disabled" };
      endpoint = (await this.enableEndpoint(delivery.customerId)) ?? endpoint;
    }
    const context: AttemptContext = {
      trigger: "redeliver",
      scheduledAt: this.clock.now(),
      scheduleIndex: null,
      jobId: null,
    };
    const made = await this.track(this.attempt(delivery, endpoint, context));
    const updated = await this.deliveries.get(deliveryId);
    if (updated === undefined) return { kind: "not_found" };
    // Not made: the dispatcher closed, or a 410 disabled the endpoint while the attempt waited.
    if (made === undefined) return this.stopping ? { kind: "closed" } : { kind: "endpoint_disabled" };
    return { kind: "attempted", delivery: updated, attempt: made };
  }

  async settle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  async resume(): Promise<void> {
    for (const delivery of await this.deliveries.list({ state: "pending" })) {
      if (delivery.nextJobId === null || delivery.nextAttemptAt === null) continue;
      const { id, nextJobId, nextAttemptAt, scheduleIndex } = delivery;
      await scheduleAttempt(this.scheduler, { id: nextJobId, dueAt: nextAttemptAt, deliveryId: id, scheduleIndex });
    }
  }

  async reset(customerId?: string): Promise<void> {
    const doomed = await this.deliveries.list(customerId === undefined ? {} : { customerId });
    for (const delivery of doomed) {
      if (delivery.nextJobId !== null) await this.scheduler.cancel(delivery.nextJobId);
    }
    await this.deliveries.reset(customerId);
  }

  async shutdown(deadline?: AbortSignal): Promise<WebhookCloseReport> {
    this.stopping = true;
    const given = untilAborted(deadline);
    while (this.inFlight.size > 0 && !(deadline?.aborted ?? true)) {
      await Promise.race([Promise.allSettled([...this.inFlight]), given]);
    }
    const attemptsCutOff = this.posting;
    this.closing.abort();
    await this.settle();
    return { attemptsCutOff, undelivered: await this.placement.undelivered() };
  }

  async close(): Promise<void> {
    await this.shutdown();
  }

  // ── jobs and the work in flight ────────────────────────────────────────

  private async runJob(job: Job): Promise<void> {
    if (!isAttemptJobPayload(job.payload)) throw new Error(`malformed ${WEBHOOK_ATTEMPT_JOB} payload`);
    const { deliveryId, scheduleIndex } = job.payload;
    if (this.stopping) {
      await this.placement.giveUp({ jobId: job.id, dueAt: job.dueAt, deliveryId, scheduleIndex });
      return;
    }
    const delivery = await this.deliveries.get(deliveryId);
    if (delivery === undefined || delivery.state !== "pending") return;
    // Superseded (redelivery, webhook before response), or run again after its attempt was recorded.
    if (delivery.nextJobId !== job.id) {
      // A retry's job can fall due before the attempt that scheduled it names it on the delivery (that
      // process stalled, or died and its attempt runs again): it looks again later instead of being dropped.
      if (scheduleIndex > delivery.scheduleIndex) {
        const dueAt = Math.max(this.clock.now(), job.dueAt) + NOT_YET_NAMED_RECHECK_MS;
        await scheduleAttempt(this.scheduler, { id: job.id, dueAt, deliveryId, scheduleIndex });
      }
      return;
    }
    const context: AttemptContext = { trigger: "schedule", scheduledAt: job.dueAt, scheduleIndex, jobId: job.id };
    await this.placement.runJob(
      this.track(this.attemptScheduled(delivery, context)),
      horizonOf(delivery, job.dueAt, scheduleIndex, this.retry),
    );
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work)).catch(() => undefined);
    return work;
  }

  private async canEvict(orderId: string): Promise<boolean> {
    if (this.announcing.has(orderId)) return false;
    // Asked for pending ones only: a store need not read back the finished ones it keeps packed.
    return (await this.deliveries.list({ orderId, state: "pending" })).length === 0;
  }

  // ── announce: a status change becomes deliveries ───────────────────────

  private async statusChanged(change: StatusChange): Promise<void> {
    const { id } = change.order;
    this.announcing.set(id, (this.announcing.get(id) ?? 0) + 1);
    try {
      await this.announce(change);
    } finally {
      const left = (this.announcing.get(id) ?? 1) - 1;
      if (left === 0) this.announcing.delete(id);
      else this.announcing.set(id, left);
    }
  }

  private async announce(change: StatusChange): Promise<void> {
    const { order } = change;
    if (!change.final && !this.intermediate) return;
    const endpoint = (change.customer ?? (await this.store.getCustomer(order.customerId)))?.webhook;
    // No endpoint configured: nothing to send, nothing to show.
    if (endpoint === undefined) return;
    const faults = order.webhookFaults ?? {};
    const now = this.clock.now();
    const fields = this.messageOf(change, now);
    const deliveryId = deliveryIdOf(fields.messageId);
    const repeated = change.repeated === true;
    // Recorded, never sent: dropped by a scenario, or for an endpoint a 410 or an admin turned off.
    if (faults.drop === true || endpoint.disabled === true) {
      const why =
        faults.drop === true
          ? { state: "dropped" as const, reason: "dropped by a scenario" }
          : { state: "disabled" as const, reason: "the endpoint is disabled" };
      await this.createDelivery(deliveryId, { ...fields, ...why }, null, { repeated });
      return;
    }
    const firstDelay = withJitter(this.retry.schedule[0] ?? 0, this.retry.jitter, () => this.random.next());
    const dueAt = now + (faults.delayMs ?? 0) + firstDelay;
    const original = await this.createDelivery(deliveryId, { ...fields, state: "pending" }, dueAt, { repeated });
    const { followUp: _once, ...copy } = fields;
    for (let i = 1; i <= (faults.duplicates ?? 0); i++) {
      const duplicate = { ...copy, kind: "duplicate" as const, parentId: original.id, state: "pending" as const };
      await this.createDelivery(`${deliveryId}d${i}`, duplicate, dueAt, { repeated });
    }
  }

  /** The message a status change announces, in the provider's dialect, with its stale follow-up if asked. */
  private messageOf(change: StatusChange, now: number): Omit<DeliveryFields, "state"> {
    const { order } = change;
    const faults = order.webhookFaults ?? {};
    // Only the first final status gets a stale follow-up, not a later reversal.
    const firstFinal = change.final && !isFinalStatus(this.statusTable, change.previousStatus);
    const stale =
      faults.staleAfterFinal === true && firstFinal ? staleEntryBefore(change, this.statusTable) : undefined;
    const messageId = statusMessageId(order.id, order.history.length);
    const context = { createdAt: isoTime(order.createdAt), deliveryId: messageId };
    return {
      messageId,
      kind: "status",
      customerId: order.customerId,
      orderId: order.id,
      reference: order.reference,
      status: order.status,
      final: change.final,
      body: JSON.stringify(this.dialect.webhook(buildWebhookPayload(change), context)),
      createdAt: now,
      badSignature: faults.badSignature === true,
      ...(stale === undefined
        ? {}
        : {
            followUp: {
              status: stale.status,
              body: JSON.stringify(this.dialect.webhook(buildStalePayload(change, stale), context)),
            },
          }),
    };
  }

  /**
   * Stores a new delivery and, unless `scheduleFirst` is false, schedules its
   * first attempt at `dueAt` (none when null). The id is derived from what it
   * announces, so announcing again finds the delivery made the first time. A
   * repeated announcement (after a process died between storing the delivery
   * and scheduling its job) schedules that job, unless it exists, where the
   * placement says that can happen.
   */
  private async createDelivery(
    id: string,
    fields: DeliveryFields,
    dueAt: number | null,
    options: { readonly scheduleFirst?: boolean; readonly repeated?: boolean },
  ): Promise<Delivery> {
    const { scheduleFirst = true, repeated = false } = options;
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
    const fresh = await this.deliveries.insert(delivery);
    const stored = fresh ? delivery : ((await this.deliveries.get(id)) ?? delivery);
    const missed =
      repeated && this.placement.mayMissFirstJob && stored.state === "pending" && stored.nextJobId === firstJob;
    if (stored.nextAttemptAt !== null && scheduleFirst && (fresh || missed)) {
      const job = { id: firstJob, dueAt: stored.nextAttemptAt, deliveryId: id, scheduleIndex: 0 };
      await scheduleAttempt(this.scheduler, { ...job, ifAbsent: !fresh });
    }
    return stored;
  }

  // ── attempt: one delivery sent once ────────────────────────────────────

  /** A scheduled (or taken-over) attempt: made if the endpoint is still usable, else its delivery stops. */
  private async attemptScheduled(delivery: Delivery, context: AttemptContext): Promise<void> {
    const endpoint = (await this.store.getCustomer(delivery.customerId))?.webhook;
    if (endpoint === undefined || endpoint.disabled === true) {
      await this.stopDelivery(delivery, context, unusableReason(endpoint));
      return;
    }
    await this.attempt(delivery, endpoint, context);
  }

  /** A scheduled attempt that will not be made: its delivery stops, saying why. */
  private async stopDelivery(delivery: Delivery, context: AttemptContext, reason: string): Promise<void> {
    await this.deliveries.update(delivery.id, (current) =>
      current.state === "pending" && current.nextJobId === context.jobId
        ? { ...current, state: "disabled", reason, nextAttemptAt: null, nextJobId: null }
        : current,
    );
  }

  /**
   * One attempt now, to `endpoint`, once its endpoint's queue gives it a
   * slot; undefined when it was not made (closing, or the endpoint turned
   * off). Shed from the queue, it is recorded as a failed attempt
   * (`queue_overflow`) that never reached the network, or, when a 410
   * cancelled the queue, stops its delivery.
   */
  private async attempt(
    delivery: Delivery,
    endpoint: WebhookEndpoint,
    context: AttemptContext,
  ): Promise<DeliveryAttempt | undefined> {
    const slot = await this.limiter.run(endpointKey(delivery.customerId, endpoint.url), async () => {
      if (this.stopping) return undefined;
      // Read again: a 410 or an admin change may have come while this attempt waited.
      const current = (await this.store.getCustomer(delivery.customerId))?.webhook;
      // Closing may have begun during that read: an attempt posted now would only be cut off at once, and
      // counted by neither side of the report, so it is handed back, as one that never started.
      if (this.stopping) return undefined;
      if (current === undefined || current.disabled === true) {
        await this.stopDelivery(delivery, context, unusableReason(current));
        return undefined;
      }
      return this.record(await this.send(delivery, current, context));
    });
    if (slot.kind === "ran") {
      const { jobId, scheduleIndex } = context;
      if (slot.value === undefined && this.stopping && jobId !== null && scheduleIndex !== null) {
        await this.placement.giveUp({ jobId, dueAt: context.scheduledAt, deliveryId: delivery.id, scheduleIndex });
      }
      return slot.value;
    }
    if (slot.reason === "cancelled") {
      await this.stopDelivery(delivery, context, "cancelled while queued: the endpoint answered 410 Gone");
      return undefined;
    }
    const overflow: PostResult = { kind: "error", error: "queue_overflow", latencyMs: 0 };
    const sentAt = this.sentAtFor(context);
    return this.record({
      delivery,
      endpoint,
      context,
      sentAt,
      sentAtWall: this.wallNow(),
      requestHeaders: {},
      result: overflow,
    });
  }

  /** Signs and posts one attempt; an abort at the closing deadline is told apart from the receiver's own failure, as `shutdown`. */
  private async send(delivery: Delivery, endpoint: WebhookEndpoint, context: AttemptContext): Promise<Attempt> {
    const sentAt = this.sentAtFor(context);
    const sentAtWall = this.wallNow();
    // A wrong secret nobody holds: the receiver must reject it.
    const secrets = delivery.badSignature ? [generateWebhookSecret()] : endpoint.secrets;
    const timestampSeconds = Math.floor(sentAtWall / 1000);
    const requestHeaders = {
      "content-type": "application/json",
      "user-agent": USER_AGENT,
      ...this.dialect.signWebhook({ id: delivery.messageId, timestampSeconds, body: delivery.body, secrets }),
    };
    const { signal } = this.closing;
    const posted = await this.onTheNetwork(() =>
      postWebhook({
        url: endpoint.url,
        headers: requestHeaders,
        body: delivery.body,
        timeoutMs: this.timeoutMs,
        signal,
        wallNow: this.wallNow,
      }),
    );
    const cutOff = posted.kind === "error" && posted.error === "aborted" && signal.aborted;
    const result: PostResult = cutOff ? { ...posted, error: "shutdown" } : posted;
    return { delivery, endpoint, context, sentAt, sentAtWall, requestHeaders, result };
  }

  /** Counts one request on the network while `request` runs: what a closing deadline cuts off. */
  private async onTheNetwork<T>(request: () => Promise<T>): Promise<T> {
    this.posting += 1;
    try {
      return await request();
    } finally {
      this.posting -= 1;
    }
  }

  /** On a virtual clock an attempt is stamped at its due time, wherever the clock moved while it queued. */
  private sentAtFor(context: AttemptContext): number {
    return this.clock.virtual === true ? context.scheduledAt : this.clock.now();
  }

  // ── record: an attempt's result and what follows from it ───────────────

  /** Stores an attempt's result and what follows from it; undefined when its delivery was reset away meanwhile. */
  private async record(made: Attempt): Promise<DeliveryAttempt | undefined> {
    const { delivery, endpoint, result } = made;
    const outcome = outcomeOf(result);
    // The time the attempt took as the simulator clock saw it, never more than it really
    // took; none on a virtual clock, whatever else the clock ran meanwhile.
    const finishedAt =
      this.clock.virtual === true
        ? made.sentAt
        : made.sentAt + Math.max(0, Math.min(this.clock.now() - made.sentAt, result.latencyMs));
    const updated = await this.storeResult(made, finishedAt);
    // Reset away while the request was out.
    if (updated === undefined) return undefined;
    const attemptRecord = attemptRecordOf(made, updated.attemptCount);
    await this.deliveries.addAttempt(attemptRecord);
    if (outcome === "gone") {
      await this.disableEndpoint(delivery.customerId, endpoint.url);
      // Attempts already waiting for this endpoint are not sent either.
      this.limiter.cancelQueued(endpointKey(delivery.customerId, endpoint.url));
    }
    const settled = updated.state === "delivered" || updated.state === "failed";
    if (delivery.state === "pending" && settled && updated.followUp !== undefined) {
      await this.sendFollowUp(updated, finishedAt);
    }
    return attemptRecord;
  }

  /**
   * The delivery after the attempt. The retry's job exists before the
   * delivery names it: a process killed in between leaves a job the delivery
   * ignores, never a delivery waiting for a job nobody scheduled. A closing
   * dispatcher schedules nothing more (the delivery stays pending with its
   * next time), unless the placement has another process make the retry.
   */
  private async storeResult({ delivery, context, result }: Attempt, finishedAt: number) {
    const outcome = outcomeOf(result);
    const delay = retryDelay(this.retry, context.scheduleIndex, result, () => this.random.next());
    const planned = plannedRetry(delivery.id, context, outcome, finishedAt, delay);
    const scheduled = planned !== undefined && (!this.stopping || this.placement.retriesWhileClosing);
    if (scheduled) {
      const { jobId, dueAt, scheduleIndex } = planned;
      await scheduleAttempt(this.scheduler, { id: jobId, dueAt, deliveryId: delivery.id, scheduleIndex });
    }
    const updated = await this.deliveries.update(delivery.id, (current) =>
      nextState(current, context, outcome, finishedAt, delay, this.retry.schedule.length),
    );
    // Delivered, disabled or superseded meanwhile: the retry is not wanted.
    if (scheduled && updated?.nextJobId !== planned.jobId) await this.scheduler.cancel(planned.jobId);
    return updated;
  }

  /**
   * Starts the stale follow-up at once rather than through the scheduler, so it
   * reaches the receiver within the same `advance()` as the final message it
   * follows; its retries, if any, are scheduled as usual. Where the placement
   * makes it a job like any other, a process killed now leaves it to a survivor.
   */
  private async sendFollowUp(parent: Delivery, now: number): Promise<void> {
    const followUp = parent.followUp;
    if (followUp === undefined) return;
    const followAsJob = this.placement.followUpAsJob;
    const stale = await this.createDelivery(
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
      { scheduleFirst: followAsJob },
    );
    if (followAsJob) return;
    const context: AttemptContext = { trigger: "schedule", scheduledAt: now, scheduleIndex: 0, jobId: stale.nextJobId };
    // Not awaited: it runs after the final message's attempt has finished; settle() still waits for it.
    this.scheduler.track(this.track(this.attemptScheduled(stale, context)), horizonOf(stale, now, 0, this.retry));
  }

  // ── the customer's endpoint, turned off by a 410 and on by a redelivery ─
  // Both change the endpoint alone, through `patchCustomer`: writing the whole customer back would
  // also write its wallets as they were read, undoing a debit made between the read and the write,
  // so a 410 during traffic would create money.

  /** Disables the customer's endpoint if it is still at `url`: the URL may have been changed meanwhile. */
  private async disableEndpoint(customerId: string, url: string): Promise<void> {
    const customer = await this.store.getCustomer(customerId);
    if (customer?.webhook === undefined || customer.webhook.url !== url) return;
    await this.store.patchCustomer(customerId, { webhook: { ...customer.webhook, disabled: true } });
  }

  /** Enables the customer's endpoint; undefined when there is none. */
  private async enableEndpoint(customerId: string): Promise<WebhookEndpoint | undefined> {
    const customer = await this.store.getCustomer(customerId);
    if (customer?.webhook === undefined) return undefined;
    const { disabled: _cleared, ...webhook } = customer.webhook;
    await this.store.patchCustomer(customerId, { webhook });
    return webhook;
  }
}

function unusableReason(endpoint: WebhookEndpoint | undefined): string {
  return endpoint === undefined ? "the customer has no webhook endpoint" : "the endpoint is disabled";
}

/** One queue per customer endpoint: customers sharing a host never share a queue or its cap. */
function endpointKey(customerId: string, url: string): string {
  return `${customerId} ${url}`;
}

function attemptRecordOf(made: Attempt, number: number): DeliveryAttempt {
  const { delivery, context, result } = made;
  return {
    deliveryId: delivery.id,
    messageId: delivery.messageId,
    customerId: delivery.customerId,
    orderId: delivery.orderId,
    reference: delivery.reference,
    number,
    trigger: context.trigger,
    scheduledAt: context.scheduledAt,
    sentAt: made.sentAt,
    sentAtWall: made.sentAtWall,
    url: made.endpoint.url,
    requestHeaders: made.requestHeaders,
    requestBody: delivery.body,
    responseStatus: result.kind === "response" ? result.status : null,
    error: result.kind === "error" ? result.error : null,
    latencyMs: result.latencyMs,
    outcome: outcomeOf(result),
    ...(result.kind === "response" && result.retryAfterMs !== undefined ? { retryAfterMs: result.retryAfterMs } : {}),
  };
}

/** Resolves when `signal` aborts; never without one. */
function untilAborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) resolve();
    else signal?.addEventListener("abort", () => resolve(), { once: true });
  });
}

// ── attempt jobs, and where they run ───────────────────────────────────

/** Schedules one attempt's job. `ifAbsent`: leaves a job of that id that is still waiting or running alone. */
async function scheduleAttempt(
  scheduler: Scheduler,
  job: { readonly id: string; readonly dueAt: number; readonly ifAbsent?: boolean } & AttemptJobPayload,
): Promise<void> {
  const { id, dueAt, deliveryId, scheduleIndex, ifAbsent = false } = job;
  const payload: AttemptJobPayload = { deliveryId, scheduleIndex };
  await scheduler.schedule({ id, type: WEBHOOK_ATTEMPT_JOB, dueAt, payload, ...(ifAbsent ? { ifAbsent } : {}) });
}

/** A claimed attempt job, as a closing process hands it back. */
interface ClaimedAttempt extends AttemptJobPayload {
  readonly jobId: string;
  readonly dueAt: number;
}

/**
 * Where attempts run. Local: this process's own scheduler, which a job
 * must not hold up (it only starts the request). Shared: a scheduler
 * several processes claim leased jobs from; a job holds its lease until its
 * attempt is recorded, and a closing process hands the attempts it will not
 * make back to the others.
 */
interface AttemptPlacement {
  /** Runs a claimed job's attempt: shared, the job awaits it; local, the scheduler moves on while the request is out. */
  runJob(work: Promise<unknown>, horizon: number): Promise<void>;
  /** A claimed attempt this closing process will not make: shared, another process makes it; local, it stays pending. */
  giveUp(claimed: ClaimedAttempt): Promise<void>;
  /** A closing process still schedules retries: shared, another process makes them. */
  readonly retriesWhileClosing: boolean;
  /**
   * A repeated announcement may find a delivery whose first job was never
   * scheduled (a process died between the two): shared, it schedules the job
   * unless it exists. Locally the process that stored it scheduled it.
   */
  readonly mayMissFirstJob: boolean;
  /** A stale follow-up is a job like any other (shared: a process killed now leaves it to a survivor); local, it runs at once. */
  readonly followUpAsJob: boolean;
  /** What a closed dispatcher left: shared, only what this process handed back; local, every pending delivery. */
  undelivered(): Promise<number>;
}

function createAttemptPlacement(
  jobs: JobPlacement | undefined,
  ports: { readonly scheduler: Scheduler; readonly clock: Clock; readonly deliveries: DeliveryStore },
): AttemptPlacement {
  jobs?.share(WEBHOOK_ATTEMPT_JOB);
  return jobs?.kind === "shared" ? sharedPlacement(ports) : localPlacement(ports);
}

function localPlacement({ scheduler, deliveries }: { scheduler: Scheduler; deliveries: DeliveryStore }) {
  return {
    async runJob(work: Promise<unknown>, horizon: number) {
      scheduler.track(work, horizon);
    },
    giveUp: async () => undefined,
    retriesWhileClosing: false,
    mayMissFirstJob: false,
    followUpAsJob: false,
    undelivered: async () => (await deliveries.list({ state: "pending" })).length,
  } satisfies AttemptPlacement;
}

function sharedPlacement({ scheduler, clock }: { scheduler: Scheduler; clock: Clock }): AttemptPlacement {
  let handedBack = 0;
  return {
    async runJob(work) {
      await work;
    },
    /**
     * The job goes back to the shared scheduler. Its due time moves on by at
     * least 1 ms: the scheduler then sees a job scheduled again, not the one
     * claimed, and keeps it when the claim completes.
     */
    async giveUp({ jobId, dueAt, deliveryId, scheduleIndex }) {
      handedBack += 1;
      await scheduleAttempt(scheduler, {
        id: jobId,
        dueAt: Math.max(clock.now(), dueAt + 1),
        deliveryId,
        scheduleIndex,
      });
    },
    retriesWhileClosing: true,
    mayMissFirstJob: true,
    followUpAsJob: true,
    undelivered: async () => handedBack,
  };
}

/*
 * Caps on webhook attempts in flight: a global cap, a cap per endpoint, and a
 * bounded queue per endpoint. When a slot frees, the endpoints with waiting
 * attempts take turns (round robin), so an endpoint that hangs holds at most
 * its own cap of slots and never makes another endpoint wait behind its
 * queue. Hand-written rather than p-limit or p-queue: those have one queue,
 * and fairness across keys with a bound per key is the point here.
 */

/** Why a waiting task was never run: its queue overflowed, or its endpoint's queue was cancelled. */
type ShedReason = "queue_overflow" | "cancelled";

type SlotResult<T> =
  { readonly kind: "ran"; readonly value: T } | { readonly kind: "shed"; readonly reason: ShedReason };

interface FairLimiterOptions {
  /** Tasks running at once, all keys together. */
  readonly maxActive: number;
  /** Tasks running at once for one key. */
  readonly maxActivePerKey: number;
  /** Tasks waiting for one key; one more sheds the oldest waiting one. */
  readonly maxQueuedPerKey: number;
}

export interface FairLimiter {
  /** Runs `task` when a slot is free for `key`, or resolves as shed if it never gets one. */
  run<T>(key: string, task: () => Promise<T>): Promise<SlotResult<T>>;
  /** Sheds every task still waiting for `key` (reason `cancelled`); returns how many. */
  cancelQueued(key: string): number;
}

interface Waiter {
  start(): void;
  shed(reason: ShedReason): void;
}

interface Lane {
  active: number;
  readonly waiting: Waiter[];
}

/**
 * @example
 * const limiter = createFairLimiter({ maxActive: 256, maxActivePerKey: 32, maxQueuedPerKey: 1000 });
 * const result = await limiter.run("acme https://acme.example/hooks", () => fetch(url, init));
 * if (result.kind === "shed") console.log(result.reason); // "queue_overflow" or "cancelled"
 */
export function createFairLimiter(options: FairLimiterOptions): FairLimiter {
  const { maxActive, maxActivePerKey, maxQueuedPerKey } = options;
  for (const [name, value] of Object.entries(options)) {
    if (!Number.isInteger(value) || value < (name === "maxQueuedPerKey" ? 0 : 1)) {
      throw new RangeError(`a limiter needs an integer ${name} >= ${name === "maxQueuedPerKey" ? 0 : 1}`);
    }
  }
  const lanes = new Map<string, Lane>();
  // Lanes with waiting tasks, in turn order: a lane served goes to the back.
  const ready = new Map<string, Lane>();
  let active = 0;

  function forget(key: string, lane: Lane): void {
    if (lane.active === 0 && lane.waiting.length === 0 && lanes.get(key) === lane) lanes.delete(key);
  }

  /** Gives free slots to waiting tasks, one lane at a time in turn. */
  function pump(): void {
    while (active < maxActive) {
      let started = false;
      for (const [key, lane] of ready) {
        if (lane.active >= maxActivePerKey) continue;
        const waiter = lane.waiting.shift() as Waiter;
        ready.delete(key);
        if (lane.waiting.length > 0) ready.set(key, lane);
        lane.active++;
        active++;
        waiter.start();
        started = true;
        break;
      }
      if (!started) return;
    }
  }

  function admit(key: string, lane: Lane): Promise<ShedReason | undefined> {
    // No waiting task could use a free slot (pump runs on every release), so a free slot is this task's.
    if (lane.active < maxActivePerKey && active < maxActive) {
      lane.active++;
      active++;
      return Promise.resolve(undefined);
    }
    return new Promise((resolve) => {
      if (lane.waiting.length >= maxQueuedPerKey) lane.waiting.shift()?.shed("queue_overflow");
      if (maxQueuedPerKey === 0) {
        resolve("queue_overflow");
        return;
      }
      lane.waiting.push({ start: () => resolve(undefined), shed: (reason) => resolve(reason) });
      if (!ready.has(key)) ready.set(key, lane);
    });
  }

  return {
    async run(key, task) {
      const lane = lanes.get(key) ?? { active: 0, waiting: [] };
      lanes.set(key, lane);
      const shed = await admit(key, lane);
      if (shed !== undefined) {
        forget(key, lane);
        return { kind: "shed", reason: shed };
      }
      try {
        return { kind: "ran", value: await task() };
      } finally {
        lane.active--;
        active--;
        forget(key, lane);
        pump();
      }
    },
    cancelQueued(key) {
      const lane = lanes.get(key);
      if (lane === undefined) return 0;
      const doomed = lane.waiting.splice(0);
      ready.delete(key);
      forget(key, lane);
      for (const waiter of doomed) waiter.shed("cancelled");
      return doomed.length;
    },
  };
}
