/**
 * Sends one delivery to the handler under test, as the simulator's dispatcher
 * would: a POST with the exact body bytes and headers, bounded by the
 * timeout. Every outcome is a value; a handler that is down is an answer too.
 */
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

function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === "string") return cause.code;
  return typeof cause?.message === "string" ? cause.message : (error as Error).message;
}

async function send(url: string, request: SignedRequest, timeoutMs: number): Promise<HandlerAnswer> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    // Read the body so the connection is free for the next delivery.
    await response.arrayBuffer();
    return { kind: "answered", status: response.status, ms: ms() };
  } catch (error) {
    if ((error as Error).name === "TimeoutError") return { kind: "timeout", ms: ms() };
    return { kind: "unreachable", reason: reasonOf(error), ms: ms() };
  }
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
