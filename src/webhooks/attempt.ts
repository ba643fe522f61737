/**
 * Attempt: one delivery sent once, under the fair limiter's caps, signed
 * with Standard Webhooks headers; its result recorded, and what follows from
 * it: the retry on the schedule, a disabled endpoint after a 410, a stale
 * follow-up after the final message.
 */
import type { WebhookEndpoint } from "../domain/model.ts";
import { horizonOf, scheduleAttempt } from "./attempt-jobs.ts";
import type { Announcer } from "./announce.ts";
import { staleFollowUpId } from "./delivery-ids.ts";
import { type AttemptContext, nextState, outcomeOf, plannedRetry } from "./delivery-transitions.ts";
import type { DispatchKit } from "./dispatch-kit.ts";
import type { Delivery, DeliveryAttempt } from "./ports.ts";
import { type PostResult, postWebhook } from "./post-webhook.ts";
import { withJitter } from "./schedule.ts";
import { generateWebhookSecret, signWebhook } from "./signing.ts";
import { disableEndpoint } from "./webhook-endpoints.ts";

const USER_AGENT = "airtime-harness-webhooks/1";

/** One attempt as it was made: what was sent, where and when, and what came back. */
export interface Attempt {
  readonly delivery: Delivery;
  readonly endpoint: WebhookEndpoint;
  readonly context: AttemptContext;
  /** Simulator time it was sent; on a virtual clock its due time, since an attempt takes no simulator time. */
  readonly sentAt: number;
  readonly sentAtWall: number;
  readonly requestHeaders: Readonly<Record<string, string>>;
  readonly result: PostResult;
}

export interface Attempts {
  /** A scheduled (or taken-over) attempt: made if the endpoint is still usable, else its delivery stops. */
  attemptScheduled(delivery: Delivery, context: AttemptContext): Promise<void>;
  /** One attempt now, to `endpoint`; undefined when it was not made (closing, or the endpoint turned off). */
  attempt(delivery: Delivery, endpoint: WebhookEndpoint, context: AttemptContext): Promise<DeliveryAttempt | undefined>;
}

export function createAttempts(kit: DispatchKit, announcer: Announcer): Attempts {
  const { store, clock, deliveries, limiter, flights, placement, retry } = kit;

  const sentAtFor = (context: AttemptContext): number => (clock.virtual === true ? context.scheduledAt : clock.now());

  async function attemptScheduled(delivery: Delivery, context: AttemptContext): Promise<void> {
    const endpoint = (await store.getCustomer(delivery.customerId))?.webhook;
    if (endpoint === undefined || endpoint.disabled === true) {
      await stopDelivery(delivery, context, unusableReason(endpoint));
      return;
    }
    await attempt(delivery, endpoint, context);
  }

  /** A scheduled attempt that will not be made: its delivery stops, saying why. */
  async function stopDelivery(delivery: Delivery, context: AttemptContext, reason: string): Promise<void> {
    await deliveries.update(delivery.id, (current) =>
      current.state === "pending" && current.nextJobId === context.jobId
        ? { ...current, state: "disabled", reason, nextAttemptAt: null, nextJobId: null }
        : current,
    );
  }

  /**
   * Waits for a slot in its endpoint's queue; shed from the queue, it is
   * recorded as a failed attempt (`queue_overflow`) that never reached the
   * network, or, when a 410 cancelled the queue, stops its delivery.
   */
  async function attempt(
    delivery: Delivery,
    endpoint: WebhookEndpoint,
    context: AttemptContext,
  ): Promise<DeliveryAttempt | undefined> {
    const slot = await limiter.run(endpointKey(delivery.customerId, endpoint.url), async () => {
      if (flights.stopping) return undefined;
      // Read again: a 410 or an admin change may have come while this attempt waited.
      const current = (await store.getCustomer(delivery.customerId))?.webhook;
      if (current === undefined || current.disabled === true) {
        await stopDelivery(delivery, context, unusableReason(current));
        return undefined;
      }
      return record(await send(delivery, current, context));
    });
    if (slot.kind === "ran") {
      const { jobId, scheduleIndex } = context;
      if (slot.value === undefined && flights.stopping && jobId !== null && scheduleIndex !== null) {
        await placement.giveUp({ jobId, dueAt: context.scheduledAt, deliveryId: delivery.id, scheduleIndex });
      }
      return slot.value;
    }
    if (slot.reason === "cancelled") {
      await stopDelivery(delivery, context, "cancelled while queued: the endpoint answered 410 Gone");
      return undefined;
    }
    const overflow: PostResult = { kind: "error", error: "queue_overflow", latencyMs: 0 };
    const sentAt = sentAtFor(context);
    return record({
      delivery,
      endpoint,
      context,
      sentAt,
      sentAtWall: kit.wallNow(),
      requestHeaders: {},
      result: overflow,
    });
  }

  async function send(delivery: Delivery, endpoint: WebhookEndpoint, context: AttemptContext): Promise<Attempt> {
    const sentAt = sentAtFor(context);
    const sentAtWall = kit.wallNow();
    // A wrong secret nobody holds: the receiver must reject it.
    const secrets = delivery.badSignature ? [generateWebhookSecret()] : endpoint.secrets;
    const timestampSeconds = Math.floor(sentAtWall / 1000);
    const requestHeaders = {
      "content-type": "application/json",
      "user-agent": USER_AGENT,
      ...signWebhook({ id: delivery.messageId, timestampSeconds, body: delivery.body, secrets }),
    };
    const posted = await flights.post(() =>
      postWebhook({
        url: endpoint.url,
        headers: requestHeaders,
        body: delivery.body,
        timeoutMs: kit.timeoutMs,
        signal: flights.signal,
        wallNow: kit.wallNow,
      }),
    );
    const cutOff = posted.kind === "error" && posted.error === "aborted" && flights.signal.aborted;
    const result: PostResult = cutOff ? { ...posted, error: "shutdown" } : posted;
    return { delivery, endpoint, context, sentAt, sentAtWall, requestHeaders, result };
  }

  /** Stores an attempt's result and what follows from it: the retry, a disabled endpoint, a stale follow-up. */
  async function record(made: Attempt): Promise<DeliveryAttempt | undefined> {
    const { delivery, endpoint, result } = made;
    const outcome = outcomeOf(result);
    // The time the attempt took as the simulator clock saw it, never more than it really
    // took; none on a virtual clock, whatever else the clock ran meanwhile.
    const finishedAt =
      clock.virtual === true
        ? made.sentAt
        : made.sentAt + Math.max(0, Math.min(clock.now() - made.sentAt, result.latencyMs));
    const updated = await storeResult(made, finishedAt);
    // Reset away while the request was out.
    if (updated === undefined) return undefined;
    const attemptRecord = attemptRecordOf(made, updated.attemptCount);
    await deliveries.addAttempt(attemptRecord);
    if (outcome === "gone") {
      await disableEndpoint(store, delivery.customerId, endpoint.url);
      // Attempts already waiting for this endpoint are not sent either.
      limiter.cancelQueued(endpointKey(delivery.customerId, endpoint.url));
    }
    const settled = updated.state === "delivered" || updated.state === "failed";
    if (delivery.state === "pending" && settled && updated.followUp !== undefined) {
      await sendFollowUp(updated, finishedAt);
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
  async function storeResult({ delivery, context, result }: Attempt, finishedAt: number) {
    const outcome = outcomeOf(result);
    const retryDelay = retryDelayAfter(context, result);
    const planned = plannedRetry(delivery.id, context, outcome, finishedAt, retryDelay);
    const scheduled = planned !== undefined && (!flights.stopping || placement.retriesWhileClosing);
    if (scheduled) {
      const { jobId, dueAt, scheduleIndex } = planned;
      await scheduleAttempt(kit.scheduler, { id: jobId, dueAt, deliveryId: delivery.id, scheduleIndex });
    }
    const updated = await deliveries.update(delivery.id, (current) =>
      nextState(current, context, outcome, finishedAt, retryDelay, retry.schedule.length),
    );
    // Delivered, disabled or superseded meanwhile: the retry is not wanted.
    if (scheduled && updated?.nextJobId !== planned.jobId) await kit.scheduler.cancel(planned.jobId);
    return updated;
  }

  function retryDelayAfter(context: AttemptContext, result: PostResult): number | undefined {
    if (context.scheduleIndex === null) return undefined;
    const delay = retry.schedule[context.scheduleIndex + 1];
    if (delay === undefined) return undefined;
    const jittered = withJitter(delay, retry.jitter, () => kit.random.next());
    const asked = result.kind === "response" ? result.retryAfterMs : undefined;
    // Retry-After only ever makes the wait longer than the schedule's.
    return asked !== undefined && asked > jittered ? asked : jittered;
  }

  /**
   * Starts the stale follow-up at once rather than through the scheduler, so it
   * reaches the receiver within the same `advance()` as the final message it
   * follows; its retries, if any, are scheduled as usual. Where the placement
   * makes it a job like any other, a process killed now leaves it to a survivor.
   */
  async function sendFollowUp(parent: Delivery, now: number): Promise<void> {
    const followUp = parent.followUp;
    if (followUp === undefined) return;
    const stale = await announcer.createDelivery(
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
      { scheduleFirst: placement.followUpAsJob },
    );
    if (placement.followUpAsJob) return;
    const context: AttemptContext = { trigger: "schedule", scheduledAt: now, scheduleIndex: 0, jobId: stale.nextJobId };
    // Not awaited: it runs after the final message's attempt has finished; settle() still waits for it.
    kit.scheduler.track(flights.track(attemptScheduled(stale, context)), horizonOf(stale, now, 0, retry));
  }

  return { attemptScheduled, attempt };
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

/** One queue per customer endpoint: customers sharing a host never share a queue or its cap. */
function endpointKey(customerId: string, url: string): string {
  return `${customerId} ${url}`;
}

function unusableReason(endpoint: WebhookEndpoint | undefined): string {
  return endpoint === undefined ? "the customer has no webhook endpoint" : "the endpoint is disabled";
}
