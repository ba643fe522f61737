/**
 * A webhook handler as an integrator writes one: an express app on its own
 * port that verifies every request with the `standardwebhooks` package and
 * answers 400 when the signature does not hold. It records every request it
 * got (raw bytes and headers too) and answers verified ones with a status a
 * test can program per request.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { Webhook } from "standardwebhooks";

export interface HandledRequest {
  readonly webhookId: string | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly verified: boolean;
  /** The verified payload; undefined when verification failed. */
  readonly event: Record<string, unknown> | undefined;
  readonly answered: number;
}

export interface WebhookHandler {
  readonly url: string;
  readonly requests: HandledRequest[];
  /** Resolves once `count` requests arrived (wall clock; no simulator clock to advance here). */
  waitForRequests(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** `answer(n)` gives the status for the n-th verified request (1-based); default 204. */
export async function startWebhookHandler(
  secret: string,
  answer: (verifiedCount: number) => number = () => 204,
): Promise<WebhookHandler> {
  const webhook = new Webhook(secret);
  const requests: HandledRequest[] = [];
  let verifiedCount = 0;
  const app = express();
  app.post("/webhooks", express.raw({ type: "application/json" }), (req, res) => {
    const headers = req.headers as Record<string, string>;
    const body = req.body as Buffer;
    let event: Record<string, unknown> | undefined;
    try {
      event = webhook.verify(body, headers) as Record<string, unknown>;
    } catch {
      event = undefined;
    }
    const status = event === undefined ? 400 : answer(++verifiedCount);
    requests.push({
      webhookId: headers["webhook-id"],
      headers,
      body,
      verified: event !== undefined,
      event,
      answered: status,
    });
    res.sendStatus(status);
  });
  const server: Server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  return {
    url,
    requests,
    async waitForRequests(count, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      while (requests.length < count) {
        if (Date.now() > until)
          throw new Error(`handler: ${requests.length} of ${count} requests after ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
