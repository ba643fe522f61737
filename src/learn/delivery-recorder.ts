/**
 * Where the probe receives the target's webhooks: a plain HTTP server that
 * answers 200 to every POST and keeps each delivery as it arrived (headers
 * and exact body text), since nothing about their shape or signing is known
 * yet.
 */
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { RawDelivery } from "./infer-signing.ts";

export interface DeliveryRecorder {
  /** Where the target must post: `http://HOST:PORT/webhooks`. */
  readonly url: string;
  deliveries(): readonly RawDelivery[];
  /** Resolves once `done` holds for the deliveries so far, or after `timeoutMs`; true when it held. */
  waitFor(done: (deliveries: readonly RawDelivery[]) => boolean, timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

const POLL_MS = 50;

export async function startDeliveryRecorder(listen: { host: string; port: number }): Promise<DeliveryRecorder> {
  const received: RawDelivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
      }
      if (req.method === "POST") received.push({ headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  server.listen(listen.port, listen.host);
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${listen.host}:${port}/webhooks`,
    deliveries: () => received,
    async waitFor(done, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (!done(received)) {
        if (Date.now() > deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
      return true;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
