/**
 * The harness's side of webhooks: the webhook inbox (real HTTP, Standard
 * Webhooks verification), plus waiting for an order's final status — or for
 * the first request about it that failed verification.
 */
import { createWebhookInbox, type InboxDelivery, type InboxRejection, type WebhookInbox } from "../webhooks/inbox.ts";

export type WebhookWait =
  | { readonly kind: "delivered"; readonly delivery: InboxDelivery }
  | { readonly kind: "rejected"; readonly rejection: InboxRejection }
  | { readonly kind: "timeout" };

export interface WebhookReceiver {
  readonly url: string;
  readonly secret: string;
  /**
   * The first verified delivery for `reference` whose payload is final and
   * satisfies `accept` — or the first unverifiable request about it.
   */
  waitForFinal(
    reference: string,
    timeoutMs: number,
    accept?: (delivery: InboxDelivery) => boolean,
  ): Promise<WebhookWait>;
  /** Verified deliveries about `reference`, in arrival order. */
  deliveriesFor(reference: string): readonly InboxDelivery[];
  close(): Promise<void>;
}

interface Waiter {
  readonly test: () => WebhookWait | undefined;
  readonly resolve: (wait: WebhookWait) => void;
}

/**
 * @example
 * const receiver = await startWebhookReceiver({ secret, host: "127.0.0.1", port: 0 });
 * const wait = await receiver.waitForFinal("ORDER-1", 5_000);
 */
export async function startWebhookReceiver(options: {
  readonly secret: string;
  readonly host?: string;
  readonly port?: number;
}): Promise<WebhookReceiver> {
  let waiters: Waiter[] = [];
  const notify = () => {
    const pending: Waiter[] = [];
    for (const waiter of waiters) {
      const result = waiter.test();
      if (result === undefined) pending.push(waiter);
      else waiter.resolve(result);
    }
    waiters = pending;
  };
  const inbox: WebhookInbox = createWebhookInbox({
    secret: options.secret,
    ...(options.host === undefined ? {} : { host: options.host }),
    ...(options.port === undefined ? {} : { port: options.port }),
    onDelivery: () => queueMicrotask(notify),
    onRejected: () => queueMicrotask(notify),
  });
  const url = await inbox.listen();

  const referenceOf = (delivery: { payload?: unknown; body: string }): unknown => {
    const payload = delivery.payload ?? safeParse(delivery.body);
    return typeof payload === "object" && payload !== null ? (payload as { reference?: unknown }).reference : undefined;
  };

  const deliveriesFor = (reference: string) => inbox.deliveries().filter((d) => referenceOf(d) === reference);

  return {
    url,
    secret: options.secret,
    deliveriesFor,
    waitForFinal(reference, timeoutMs, accept = () => true) {
      const test = (): WebhookWait | undefined => {
        const rejection = inbox.rejected().find((r) => referenceOf({ body: r.body }) === reference);
        if (rejection !== undefined) return { kind: "rejected", rejection };
        const delivery = deliveriesFor(reference).find((d) => isFinal(d) && accept(d));
        return delivery === undefined ? undefined : { kind: "delivered", delivery };
      };
      const now = test();
      if (now !== undefined) return Promise.resolve(now);
      return new Promise<WebhookWait>((resolve) => {
        const timer = setTimeout(() => {
          waiters = waiters.filter((w) => w !== waiter);
          resolve({ kind: "timeout" });
        }, timeoutMs);
        const waiter: Waiter = {
          test,
          resolve: (wait) => {
            clearTimeout(timer);
            resolve(wait);
          },
        };
        waiters.push(waiter);
      });
    },
    close: () => inbox.close(),
  };
}

/** A delivery about a final status (`final: true`; without the flag, any non-pending status). */
function isFinal(delivery: InboxDelivery): boolean {
  const payload = delivery.payload as { final?: unknown; status?: unknown } | undefined;
  if (typeof payload?.final === "boolean") return payload.final;
  return typeof payload?.status === "number" && payload.status !== 0;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
