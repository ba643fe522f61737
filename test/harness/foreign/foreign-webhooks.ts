/**
 * The foreign provider's webhooks: an event name, the order under `data`, a
 * delivery id that stays the same on retries, and an HMAC-SHA256 hex
 * signature over `<timestamp>.<body>` — the common shape of provider
 * webhooks, none of it our spec's (Standard Webhooks).
 */
import { createHmac, randomUUID } from "node:crypto";

export type WebhookEvent = "airtime.completed" | "airtime.failed" | "airtime.reversed";

export interface WebhookRegistration {
  readonly url: string;
  readonly secret: string;
}

export interface WebhookSender {
  send(event: WebhookEvent, data: Record<string, unknown>): void;
  /** Stops every pending retry; attempts in flight are aborted. */
  close(): void;
}

const ATTEMPT_TIMEOUT_MS = 5000;

/** `sha256=<hex>` over `<timestamp>.<body>`, the way the receiver checks it. */
function signWebhook(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

/**
 * Delivers each event at least once: a first attempt at once, then one retry
 * per entry of `retryMs` (the wait before it) while the receiver answers
 * anything but 2xx or cannot be reached. Each attempt is signed afresh with
 * its own timestamp, under the delivery id of the event.
 */
export function createWebhookSender(registration: WebhookRegistration, retryMs: readonly number[]): WebhookSender {
  const timers = new Set<NodeJS.Timeout>();
  const controller = new AbortController();

  async function attempt(deliveryId: string, body: string): Promise<boolean> {
    const timestamp = String(Math.floor(Date.now() / 1000));
    try {
      const response = await fetch(registration.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-delivery-id": deliveryId,
          "x-timestamp": timestamp,
          "x-signature": signWebhook(registration.secret, timestamp, body),
        },
        body,
        signal: AbortSignal.any([controller.signal, AbortSignal.timeout(ATTEMPT_TIMEOUT_MS)]),
      });
      await response.arrayBuffer();
      return response.ok;
    } catch {
      return false;
    }
  }

  function deliver(deliveryId: string, body: string, retry: number): void {
    void attempt(deliveryId, body).then((delivered) => {
      const wait = retryMs[retry];
      if (delivered || wait === undefined || controller.signal.aborted) return;
      const timer = setTimeout(() => {
        timers.delete(timer);
        deliver(deliveryId, body, retry + 1);
      }, wait);
      timers.add(timer);
    });
  }

  return {
    send(event, data) {
      deliver(randomUUID(), JSON.stringify({ event, data, sentAt: new Date().toISOString() }), 0);
    },
    close() {
      controller.abort();
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
