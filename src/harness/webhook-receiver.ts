/**
 * The harness's view of the package's one webhook receiver (the inbox,
 * `webhooks/inbox.ts`, which verifies under the provider profile's signing
 * scheme, dedupes on the delivery id, records and waits): the order-status
 * events among its deliveries (the profile's event filter), an order's
 * deliveries found by the reference read through the profile's webhook
 * pointers, and waiting for an order's final status, or for the first
 * request about it that failed verification.
 */
import type { CompiledProfile } from "../contract/provider-profile/compile.ts";
import { compilePointer } from "../contract/provider-profile/pointer.ts";
import type { SignatureVerifier } from "../contract/provider-profile/signing.ts";
import { createWebhookInbox, type InboxDelivery, type InboxRejection } from "../webhooks/inbox.ts";

/** A request that passed verification and is an order-status event, once per delivery id. */
export interface ReceivedDelivery {
  /** The profile's delivery id, or an index of arrival when the provider sends none. */
  readonly webhookId: string;
  readonly receivedAt: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly payload: unknown;
  /** The reference and status, read through the profile. */
  readonly reference: string | undefined;
  readonly status: number | undefined;
}

/** A request that failed verification (answered 400, never a delivery). */
export interface ReceivedRejection {
  readonly receivedAt: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly reason: string;
  readonly reference: string | undefined;
}

export type WebhookWait =
  | { readonly kind: "delivered"; readonly delivery: ReceivedDelivery }
  | { readonly kind: "rejected"; readonly rejection: ReceivedRejection }
  | { readonly kind: "timeout" };

export interface WebhookReceiver {
  readonly url: string;
  readonly secret: string;
  /** How deliveries are verified, e.g. "hmac sha256 hex in X-Signature". */
  readonly signing: string;
  /**
   * The first verified delivery for `reference` whose status is final and
   * satisfies `accept` — or the first unverifiable request about it.
   */
  waitForFinal(
    reference: string,
    timeoutMs: number,
    accept?: (delivery: ReceivedDelivery) => boolean,
  ): Promise<WebhookWait>;
  /** Verified deliveries about `reference`, in arrival order. */
  deliveriesFor(reference: string): readonly ReceivedDelivery[];
  /** The event values of verified deliveries naming `reference` that the profile's event filter set aside. */
  setAsideFor(reference: string): readonly unknown[];
  /** What reached the receiver, so a check never exercised can name why. */
  arrivals(): WebhookArrivals;
  close(): Promise<void>;
}

/** Counts of what reached the receiver over the whole run. */
export interface WebhookArrivals {
  /** Every request, verified or not, event or not. */
  readonly requests: number;
  readonly rejected: number;
  /** Verified order-status events (retries counted once). */
  readonly statusEvents: number;
  /** Of those, the ones whose reference the profile's pointer found. */
  readonly correlated: number;
  /**
   * The event filter deliveries had to pass (`/type in [airtime.status]`),
   * absent when the profile names the webhook's fields but no event: then a
   * delivery is an order's event by its reference alone.
   */
  readonly eventFilter?: string;
}

/**
 * @example
 * const receiver = await startWebhookReceiver({ secret, provider: compileProfile(), host: "127.0.0.1", port: 0 });
 * const wait = await receiver.waitForFinal("ORDER-1", 5_000);
 */
export async function startWebhookReceiver(options: {
  readonly secret: string;
  readonly provider: CompiledProfile;
  /** Overrides the profile's scheme (unsigned deliveries under `interface` when the profile names none). */
  readonly verifier?: SignatureVerifier;
  readonly host?: string;
  readonly port?: number;
}): Promise<WebhookReceiver> {
  const { provider, verifier = provider.verifier(options.secret) } = options;
  const statusEvents: ReceivedDelivery[] = [];
  /** Per reference, the event values of verified deliveries the event filter set aside. */
  const setAside = new Map<string, unknown[]>();
  const eventOf = compilePointer(provider.resolved.event.pointer);
  const { pointer, values } = provider.resolved.event;
  const eventFilter = isEventless(provider) ? undefined : `${pointer} in [${values.join(", ")}]`;
  const inbox = createWebhookInbox({
    secret: options.secret,
    provider,
    verifier,
    unidentified: "arrival",
    respond: { status: 200, body: "ok" },
    onDelivery: (delivery) => {
      if (isStatusEvent(provider, delivery)) statusEvents.push(received(delivery));
      else if (delivery.order?.reference !== undefined) {
        const values = setAside.get(delivery.order.reference) ?? [];
        values.push(eventOf(delivery.payload));
        setAside.set(delivery.order.reference, values);
      }
    },
    ...(options.host === undefined ? {} : { host: options.host }),
    ...(options.port === undefined ? {} : { port: options.port }),
  });
  const url = await inbox.listen();
  const deliveriesFor = (reference: string) => statusEvents.filter((d) => d.reference === reference);
  const isFinal = (delivery: ReceivedDelivery) =>
    delivery.status !== undefined && provider.statuses.isFinal(delivery.status);
  const rejections = () => inbox.rejected().map(rejected);

  return {
    url,
    secret: options.secret,
    signing: verifier.description,
    deliveriesFor,
    setAsideFor: (reference) => setAside.get(reference) ?? [],
    arrivals: () => ({
      requests: inbox.requests().length,
      rejected: inbox.rejected().length,
      statusEvents: statusEvents.length,
      correlated: statusEvents.filter((d) => d.reference !== undefined).length,
      ...(eventFilter === undefined ? {} : { eventFilter }),
    }),
    waitForFinal(reference, timeoutMs, accept = () => true) {
      const settled = (): WebhookWait | undefined => {
        const rejection = rejections().find((r) => r.reference === reference);
        if (rejection !== undefined) return { kind: "rejected", rejection };
        const delivery = deliveriesFor(reference).find((d) => isFinal(d) && accept(d));
        return delivery === undefined ? undefined : { kind: "delivered", delivery };
      };
      // The inbox's wait fails only when its time is up.
      return inbox
        .waitUntil(() => settled() !== undefined, timeoutMs)
        .then(
          () => settled() ?? { kind: "timeout" },
          () => ({ kind: "timeout" }),
        );
    },
    close: () => inbox.close(),
  };
}

/**
 * An order-status event by the profile. Other events (a balance alert, a
 * test ping) are acknowledged and set aside. A profile that names the
 * webhook's fields but no event filter says less: a delivery whose
 * reference (at the profile's pointer) names an order is its event. Without
 * a profile, our spec's event name is the filter.
 */
function isStatusEvent(provider: CompiledProfile, delivery: InboxDelivery): boolean {
  return provider.isStatusEvent(delivery.payload) || (isEventless(provider) && delivery.order?.reference !== undefined);
}

/** The profile names where the webhook keeps its fields but states no event (a mapping file never can). */
function isEventless(provider: CompiledProfile): boolean {
  return provider.given.webhookBody && !provider.given.event;
}

function received(delivery: InboxDelivery): ReceivedDelivery {
  const { webhookId, receivedAt, headers, body, payload, order } = delivery;
  return { webhookId, receivedAt, headers, body, payload, reference: order?.reference, status: order?.status };
}

function rejected(rejection: InboxRejection): ReceivedRejection {
  const { receivedAt, headers, body, reason, order } = rejection;
  return { receivedAt, headers, body, reason, reference: order?.reference };
}
