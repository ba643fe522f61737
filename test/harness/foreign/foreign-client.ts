/**
 * Raw HTTP around the foreign provider for its own tests: requests with a
 * token, a webhook receiver on a real socket, and polling until a condition
 * holds (never a fixed sleep standing in for "long enough").
 */
import { once } from "node:events";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { startForeignTarget, type ForeignTarget, type ForeignTargetOptions } from "./foreign-target.ts";

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are asserted field by field
  readonly body: any;
}

export async function call(
  url: string,
  token: string | undefined,
  init: { readonly method?: string; readonly body?: unknown; readonly headers?: Record<string, string> } = {},
): Promise<Answer> {
  const response = await fetch(url, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
      ...init.headers,
    },
    ...(init.body === undefined ? {} : { body: typeof init.body === "string" ? init.body : JSON.stringify(init.body) }),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: kept as text, which is what a 500 page is.
  }
  return { status: response.status, headers: response.headers, body };
}

let references = 0;

/** A valid order inside the provider's domain, with a reference no other order of this process has. */
export function anOrder(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  references += 1;
  return {
    service: "safaricom",
    account: "0712000101",
    amount: 150,
    currency: "KES",
    reference: `ord-${process.pid}-${references}`,
    ...overrides,
  };
}

export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, pauseMs = 25): Promise<T> {
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}

export interface Delivery {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface Receiver {
  readonly url: string;
  readonly deliveries: Delivery[];
  /** Answers 500 to the next `count` deliveries, so the sender retries. */
  refuse(count: number): void;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  let refusals = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      deliveries.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.statusCode = refusals > 0 ? 500 : 204;
      refusals = Math.max(0, refusals - 1);
      res.end();
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    deliveries,
    refuse(count) {
      refusals = count;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export const WEBHOOK_SECRET = "foreign-webhook-secret";
const FINALS = ["SUCCESS", "FAILED", "TIMEOUT", "REVERSED"];

/** A provider with its webhooks going to a receiver of the test's own. */
export interface Kit {
  readonly target: ForeignTarget;
  readonly receiver: Receiver;
  close(): Promise<void>;
}

/** The provider with fast finals and webhook retries, so tests wait for milliseconds, not seconds. */
export async function startKit(options: ForeignTargetOptions = {}): Promise<Kit> {
  const receiver = await startReceiver();
  const target = await startForeignTarget({
    finalDelayMs: { min: 10, max: 40 },
    reversalDelayMs: { min: 20, max: 60 },
    webhookRetryMs: [20, 50],
    webhook: { url: receiver.url, secret: WEBHOOK_SECRET },
    ...options,
  });
  return {
    target,
    receiver,
    async close() {
      await target.close();
      await receiver.close();
    },
  };
}

export const lookup = ({ target }: Kit, reference: string, token = target.tokens.primary) =>
  call(`${target.url}/v1/airtime/${encodeURIComponent(reference)}`, token);
export const balance = async ({ target }: Kit, token = target.tokens.primary) =>
  (await call(`${target.url}/v1/balance`, token)).body.data.available as string;
export const order = ({ target }: Kit, body: unknown, headers: Record<string, string> = {}) =>
  call(`${target.url}/v1/airtime`, target.tokens.primary, { body, headers });
export const finalOf = (kit: Kit, reference: string) =>
  until(
    () => lookup(kit, reference),
    (answer) => FINALS.includes(answer.body.data.status),
  );
export const isFinalWord = (word: string) => FINALS.includes(word);
