/**
 * Recording an attempt: its result stored on the delivery, its retry
 * scheduled first, and what follows from it: an endpoint a 410 turns off,
 * the attempts queued for it cancelled, a stale follow-up after the final
 * message.
 */
import type { WebhookEndpoint } from "../domain/model.ts";
import type { Announcer } from "./announce.ts";
import { horizonOf, scheduleAttempt } from "./attempt-jobs.ts";
import { staleFollowUpId } from "./delivery-ids.ts";
import { type AttemptContext, nextState, outcomeOf, plannedRetry } from "./delivery-transitions.ts";
import type { DispatchKit } from "./dispatch-kit.ts";
import type { Delivery, DeliveryAttempt } from "./ports.ts";
import type { PostResult } from "./post-webhook.ts";
import { withJitter } from "./schedule.ts";
import { disableEndpoint } from "./webhook-endpoints.ts";

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

export interface AttemptRecorder {
  /** Stores an attempt's result and what follows from it; undefined when its delivery was reset away meanwhile. */
  record(made: Attempt): Promise<DeliveryAttempt | undefined>;
}

export function createAttemptRecorder(
  kit: DispatchKit,
  announcer: Announcer,
  attemptScheduled: (delivery: Delivery, context: AttemptContext) => Promise<void>,
): AttemptRecorder {
  const { store, clock, deliveries, limiter, flights, placement, retry } = kit;

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

  return { record };
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
export function endpointKey(customerId: string, url: string): string {
  return `${customerId} ${url}`;
}
