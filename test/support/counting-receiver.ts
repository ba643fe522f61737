/**
 * A webhook receiver on a real port that counts what it gets by
 * `webhook-id`: how many requests each message took and how many it
 * answered with a 2xx. It answers 503 while `down` (after `downLatencyMs`,
 * so refused attempts stay in flight a while), 204 otherwise, and 503 to
 * the first `failFirst` requests of each message.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedMessage {
  readonly webhookId: string;
  readonly body: Record<string, unknown>;
  /** Requests with this id. */
  requests: number;
  /** Of them, answered 2xx. */
  accepted: number;
}

export interface CountingReceiver {
  readonly url: string;
  /** By `webhook-id`. */
  readonly messages: Map<string, ReceivedMessage>;
  /** Answers 503 to everything while true. */
  down: boolean;
  close(): Promise<void>;
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * @example
 * const receiver = await startCountingReceiver({ down: true });
 * // … later
 * receiver.down = false;
 */
export async function startCountingReceiver(
  options: { readonly down?: boolean; readonly downLatencyMs?: number; readonly failFirst?: number } = {},
): Promise<CountingReceiver> {
  const messages = new Map<string, ReceivedMessage>();
  const server = createServer((request, response) => {
    void bodyOf(request).then((text) => {
      const webhookId = String(request.headers["webhook-id"]);
      const message = messages.get(webhookId) ?? {
        webhookId,
        body: JSON.parse(text) as Record<string, unknown>,
        requests: 0,
        accepted: 0,
      };
      messages.set(webhookId, message);
      message.requests += 1;
      if (receiver.down) {
        setTimeout(() => response.writeHead(503).end(), options.downLatencyMs ?? 0);
        return;
      }
      const accept = message.requests > (options.failFirst ?? 0);
      if (accept) message.accepted += 1;
      response.writeHead(accept ? 204 : 503).end();
    });
  });
  server.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const receiver: CountingReceiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    messages,
    down: options.down ?? false,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return receiver;
}
