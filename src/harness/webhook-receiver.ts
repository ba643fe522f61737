/**
 * The harness's side of webhooks: a real HTTP receiver that verifies each
 * request under the provider profile's signing scheme, keeps the order-status
 * events (the profile's event filter) once per delivery id, and finds an
 * order's deliveries by the reference read through the profile's webhook
 * pointers — plus waiting for an order's final status, or for the first
 * request about it that failed verification.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { CompiledProfile } from "../contract/provider-profile/compile.ts";
import { compilePointer } from "../contract/provider-profile/pointer.ts";
import type { SignatureVerifier } from "../contract/provider-profile/signing.ts";
import { flattenHeaders } from "../webhooks/incoming-request.ts";
import { closeServer, createWebhookServer, listenOn } from "../webhooks/local-server.ts";

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
}

interface Waiter {
  readonly test: () => WebhookWait | undefined;
  readonly resolve: (wait: WebhookWait) => void;
}

/**
 * What the receiver has kept, and the waits still open on it: the request
 * handler writes it and the waits read it, so both are functions over this
 * one object rather than closures over loose variables.
 */
interface Inbox {
  readonly provider: CompiledProfile;
  readonly verifier: SignatureVerifier;
  readonly deliveries: ReceivedDelivery[];
  /** Delivery ids already kept: a retry of one is acknowledged and not kept again. */
  readonly seen: Set<string>;
  readonly rejections: ReceivedRejection[];
  /** Per reference, the event values of verified deliveries the event filter set aside. */
  readonly setAside: Map<string, unknown[]>;
  waiters: Waiter[];
  requests: number;
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
  const { provider } = options;
  const inbox: Inbox = {
    provider,
    verifier: options.verifier ?? provider.verifier(options.secret),
    deliveries: [],
    seen: new Set<string>(),
    rejections: [],
    setAside: new Map(),
    waiters: [],
    requests: 0,
  };
  const server = createWebhookServer({}, (req, res, bytes, receivedAt) => receive(inbox, req, res, bytes, receivedAt));
  const base = await listenOn(server, options.port ?? 0, options.host ?? "127.0.0.1");
  const deliveriesFor = (reference: string) => inbox.deliveries.filter((d) => d.reference === reference);
  const isFinal = (delivery: ReceivedDelivery) =>
    delivery.status !== undefined && provider.statuses.isFinal(delivery.status);

  return {
    url: `${base}/webhooks`,
    secret: options.secret,
    signing: inbox.verifier.description,
    deliveriesFor,
    setAsideFor: (reference) => inbox.setAside.get(reference) ?? [],
    arrivals: () => ({
      requests: inbox.requests,
      rejected: inbox.rejections.length,
      statusEvents: inbox.deliveries.length,
      correlated: inbox.deliveries.filter((d) => d.reference !== undefined).length,
    }),
    waitForFinal(reference, timeoutMs, accept = () => true) {
      return waitFor(inbox, timeoutMs, () => {
        const rejection = inbox.rejections.find((r) => r.reference === reference);
        if (rejection !== undefined) return { kind: "rejected", rejection };
        const delivery = deliveriesFor(reference).find((d) => isFinal(d) && accept(d));
        return delivery === undefined ? undefined : { kind: "delivered", delivery };
      });
    },
    close: () => closeServer(server),
  };
}

/**
 * One request: verified under the profile's scheme (a failure is kept as a
 * rejection and answered 400), then, when it is an order-status event, kept
 * once per delivery id. The waits are told after this request is done.
 */
function receive(inbox: Inbox, req: IncomingMessage, res: ServerResponse, bytes: Buffer, receivedAt: number): void {
  const { provider, deliveries, rejections } = inbox;
  inbox.requests += 1;
  const headers = flattenHeaders(req);
  const body = bytes.toString("utf8");
  const payload = parseJson(body);
  const fields = provider.readOrder("webhook", payload);
  const outcome = inbox.verifier.verify(body, headers);
  if (outcome.kind === "rejected") {
    rejections.push({ receivedAt, headers, body, reason: outcome.reason, reference: fields.reference });
    res.writeHead(400, { "content-type": "text/plain; charset=utf-8" }).end(`rejected: ${outcome.reason}`);
    queueMicrotask(() => notifyWaiters(inbox));
    return;
  }
  res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end("ok");
  // Other events (a balance alert, a test ping) are acknowledged and set aside. A profile that names the
  // webhook's fields but no event filter says less: a delivery whose reference (at the profile's pointer)
  // names an order is its event. Without a profile, our spec's event name is the filter.
  const eventless = provider.given.webhookBody && !provider.given.event;
  const statusEvent = provider.isStatusEvent(payload) || (eventless && fields.reference !== undefined);
  if (!statusEvent) {
    if (fields.reference !== undefined) {
      const values = inbox.setAside.get(fields.reference) ?? [];
      values.push(compilePointer(provider.resolved.event.pointer)(payload));
      inbox.setAside.set(fields.reference, values);
    }
    return;
  }
  const webhookId = provider.deliveryId(headers, payload) ?? `arrival-${deliveries.length + rejections.length}`;
  if (inbox.seen.has(webhookId)) return; // a retry of a delivery already kept
  inbox.seen.add(webhookId);
  deliveries.push({
    webhookId,
    receivedAt,
    headers,
    body,
    payload,
    reference: fields.reference,
    status: fields.status,
  });
  queueMicrotask(() => notifyWaiters(inbox));
}

/** Resolves every wait whose test now passes, and keeps the others open. */
function notifyWaiters(inbox: Inbox): void {
  const pending: Waiter[] = [];
  for (const waiter of inbox.waiters) {
    const result = waiter.test();
    if (result === undefined) pending.push(waiter);
    else waiter.resolve(result);
  }
  inbox.waiters = pending;
}

/** `test`'s answer now if it has one, else the first it gives after a request, else a timeout. */
function waitFor(inbox: Inbox, timeoutMs: number, test: () => WebhookWait | undefined): Promise<WebhookWait> {
  const now = test();
  if (now !== undefined) return Promise.resolve(now);
  return new Promise<WebhookWait>((resolve) => {
    const timer = setTimeout(() => {
      inbox.waiters = inbox.waiters.filter((w) => w !== waiter);
      resolve({ kind: "timeout" });
    }, timeoutMs);
    const waiter: Waiter = {
      test,
      resolve: (wait) => {
        clearTimeout(timer);
        resolve(wait);
      },
    };
    inbox.waiters.push(waiter);
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
