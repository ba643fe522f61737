/**
 * Attempt: one delivery sent once, under the fair limiter's caps, signed
 * as the provider's profile says (Standard Webhooks by default), then recorded (`attempt-record.ts`): the
 * retry on the schedule, a disabled endpoint after a 410, a stale follow-up
 * after the final message.
 */
import type { WebhookEndpoint } from "../domain/model.ts";
import type { Announcer } from "./announce.ts";
import { type Attempt, createAttemptRecorder, endpointKey } from "./attempt-record.ts";
import type { AttemptContext } from "./delivery-transitions.ts";
import type { DispatchKit } from "./dispatch-kit.ts";
import type { Delivery, DeliveryAttempt } from "./ports.ts";
import { type PostResult, postWebhook } from "./post-webhook.ts";
import { generateWebhookSecret } from "./signing.ts";

const USER_AGENT = "airtime-harness-webhooks/1";

export interface Attempts {
  /** A scheduled (or taken-over) attempt: made if the endpoint is still usable, else its delivery stops. */
  attemptScheduled(delivery: Delivery, context: AttemptContext): Promise<void>;
  /** One attempt now, to `endpoint`; undefined when it was not made (closing, or the endpoint turned off). */
  attempt(delivery: Delivery, endpoint: WebhookEndpoint, context: AttemptContext): Promise<DeliveryAttempt | undefined>;
}

export function createAttempts(kit: DispatchKit, announcer: Announcer): Attempts {
  const { store, deliveries, limiter, flights, placement } = kit;

  // The follow-up of a final message runs as an attempt of its own, here.
  const { record } = createAttemptRecorder(kit, announcer, (delivery, context) => attemptScheduled(delivery, context));

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
      // Closing may have begun during that read: an attempt posted now would only be cut off at once, and
      // counted by neither side of the report, so it is handed back, as one that never started.
      if (flights.stopping) return undefined;
      if (current === undefined || current.disabled === true) {
        await stopDelivery(delivery, context, unusableReason(current));
        return undefined;
      }
      return record(await send(kit, delivery, current, context));
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
    const sentAt = sentAtFor(kit, context);
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

  return { attemptScheduled, attempt };
}

function unusableReason(endpoint: WebhookEndpoint | undefined): string {
  return endpoint === undefined ? "the customer has no webhook endpoint" : "the endpoint is disabled";
}

/**
 * Signs and posts one attempt, outside the factory's closure: it needs only
 * the kit, and an abort at the closing deadline is told apart from the
 * receiver's own failure, as `shutdown`.
 */
async function send(
  kit: DispatchKit,
  delivery: Delivery,
  endpoint: WebhookEndpoint,
  context: AttemptContext,
): Promise<Attempt> {
  const sentAt = sentAtFor(kit, context);
  const sentAtWall = kit.wallNow();
  // A wrong secret nobody holds: the receiver must reject it.
  const secrets = delivery.badSignature ? [generateWebhookSecret()] : endpoint.secrets;
  const timestampSeconds = Math.floor(sentAtWall / 1000);
  const requestHeaders = {
    "content-type": "application/json",
    "user-agent": USER_AGENT,
    ...kit.dialect.signWebhook({ id: delivery.messageId, timestampSeconds, body: delivery.body, secrets }),
  };
  const posted = await kit.flights.post(() =>
    postWebhook({
      url: endpoint.url,
      headers: requestHeaders,
      body: delivery.body,
      timeoutMs: kit.timeoutMs,
      signal: kit.flights.signal,
      wallNow: kit.wallNow,
    }),
  );
  const cutOff = posted.kind === "error" && posted.error === "aborted" && kit.flights.signal.aborted;
  const result: PostResult = cutOff ? { ...posted, error: "shutdown" } : posted;
  return { delivery, endpoint, context, sentAt, sentAtWall, requestHeaders, result };
}

/** On a virtual clock an attempt is stamped at its due time, wherever the clock moved while it queued. */
function sentAtFor({ clock }: DispatchKit, context: AttemptContext): number {
  return clock.virtual === true ? context.scheduledAt : clock.now();
}
