/**
 * Sends one delivery to the handler under test, as the simulator's dispatcher
 * would: a POST with the exact body bytes and headers, bounded by the
 * timeout. Every outcome is a value; a handler that is down is an answer too.
 */
import { sendToUrl } from "../harness/http-client.ts";
import type { SignedRequest } from "./delivery-dialect.ts";

export type HandlerAnswer =
  | { readonly kind: "answered"; readonly status: number; readonly ms: number }
  | { readonly kind: "timeout"; readonly ms: number }
  | { readonly kind: "unreachable"; readonly reason: string; readonly ms: number };

export interface HandlerClient {
  deliver(request: SignedRequest): Promise<HandlerAnswer>;
  /** POSTs JSON (the reconcile request) with the same timeout. */
  post(url: string, body: unknown): Promise<HandlerAnswer>;
}

async function send(url: string, request: SignedRequest, timeoutMs: number): Promise<HandlerAnswer> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  const outcome = await sendToUrl(url, { method: "POST", headers: request.headers, body: request.body, timeoutMs });
  if (outcome.kind === "response") return { kind: "answered", status: outcome.status, ms: ms() };
  if (outcome.code === "ETIMEDOUT") return { kind: "timeout", ms: ms() };
  return { kind: "unreachable", reason: outcome.code, ms: ms() };
}

/**
 * @example
 * const client = createHandlerClient("http://localhost:3000/webhooks/airtime", 10_000);
 * const answer = await client.deliver(dialect.sign(message, nowSeconds, secret));
 */
export function createHandlerClient(handlerUrl: string, timeoutMs: number): HandlerClient {
  return {
    deliver: (request) => send(handlerUrl, request, timeoutMs),
    post: (url, body) =>
      send(url, { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }, timeoutMs),
  };
}

/** `204 in 3 ms`, `timeout after 10000 ms`, `unreachable (ECONNREFUSED)`. */
export function describeAnswer(answer: HandlerAnswer): string {
  switch (answer.kind) {
    case "answered":
      return `${answer.status} in ${answer.ms} ms`;
    case "timeout":
      return `no answer within ${answer.ms} ms (timeout)`;
    case "unreachable":
      return `unreachable (${answer.reason})`;
    default: {
      const unreachable: never = answer;
      throw new Error(`unknown answer ${JSON.stringify(unreachable)}`);
    }
  }
}
