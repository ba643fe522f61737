/**
 * The small node:http servers that receive webhooks (the inbox, the
 * forwarder): POST only, a bounded body read as the exact bytes sent, listen
 * and say where, close without waiting on idle keep-alive sockets.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readBody } from "./incoming-request.ts";

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Where a receiver listens and what it accepts. */
export interface LocalServerOptions {
  /** Port to listen on; 0 (default) picks a free one. */
  readonly port?: number;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Largest accepted body in bytes; default 1 MiB. */
  readonly maxBodyBytes?: number;
  /** Wall clock for arrival times; injectable for tests. */
  readonly now?: () => number;
}

/** Wall time, unless the options inject a clock. */
export const wallClock = (): number => Date.now();

/** Listens on the options' `port` (0: any free one) and `host`; resolves with `http://host:port`. */
export async function listenOn(
  server: Server,
  { port = 0, host = "127.0.0.1" }: Pick<LocalServerOptions, "port" | "host">,
): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return `http://${shown}:${address.port}`;
}

/** Stops listening and drops open connections (requests in flight included). */
export async function closeServer(server: Server): Promise<void> {
  if (!server.listening) return;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  await closed;
}

/** Called with each POST whose whole body arrived within the size limit. */
export type WebhookRequestHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  receivedAt: number,
) => void | Promise<void>;

export function createWebhookServer(
  { now = wallClock, maxBodyBytes = DEFAULT_MAX_BODY_BYTES }: LocalServerOptions,
  onRequest: WebhookRequestHandler,
): Server {
  const server = createServer((req, res) => {
    const receivedAt = now();
    if (req.method !== "POST") {
      res.writeHead(405, { allow: "POST", "content-type": "text/plain; charset=utf-8" });
      res.end("webhooks are POSTed");
      return;
    }
    readBody(req, maxBodyBytes).then(
      (read) => {
        if (read.kind === "body") return onRequest(req, res, read.bytes, receivedAt);
        res.writeHead(413, { "content-type": "text/plain; charset=utf-8" });
        res.end("payload too large");
      },
      () => res.destroy(),
    );
  });
  // Keep-alive sockets would hold close() open; the sender opens new ones as needed.
  server.keepAliveTimeout = 1000;
  return server;
}
