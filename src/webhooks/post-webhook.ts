/**
 * One HTTP attempt of a webhook: POST, bounded by a per-attempt timeout,
 * redirects not followed (a 3xx is a failed attempt, as Standard Webhooks
 * says), the answer classified without throwing. At most
 * {@link MAX_RESPONSE_BODY_BYTES} of the answer's body are read: a receiver
 * that streams without end costs that much and no more.
 */
import { Agent as HttpAgent, type ClientRequest, type IncomingMessage, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";

export type PostResult =
  | { readonly kind: "response"; readonly status: number; readonly retryAfterMs?: number; readonly latencyMs: number }
  | { readonly kind: "error"; readonly error: string; readonly latencyMs: number };

export interface PostRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Sent as is: bytes when they must arrive unchanged (forwarding). */
  readonly body: string | Uint8Array;
  readonly timeoutMs: number;
  /** Aborts the attempt early (the dispatcher is closing). */
  readonly signal?: AbortSignal;
  /** Wall clock, for latency and HTTP-date `Retry-After`. */
  readonly wallNow: () => number;
}

/** The most of a response body read (and then thrown away): the status is the answer. */
export const MAX_RESPONSE_BODY_BYTES = 64 * 1024;

/** Statuses whose `Retry-After` is honoured. */
const RETRY_AFTER_STATUSES = new Set([429, 503]);

/**
 * Sockets are kept alive between attempts to one receiver, as a client of a
 * real provider would; the dispatcher's caps bound how many are open.
 */
const agents = { "http:": new HttpAgent({ keepAlive: true }), "https:": new HttpsAgent({ keepAlive: true }) };

/**
 * node:http rather than fetch: fetch costs a web stream, an AbortSignal and
 * a transferable per attempt, about a sixth of the CPU of a run under load
 * with webhooks, for features an attempt does not use.
 */
export function postWebhook(request: PostRequest): Promise<PostResult> {
  const started = request.wallNow();
  return new Promise((resolve) => {
    let settled = false;
    let sent: ClientRequest | undefined;
    /** Set once the status came: the attempt is answered even if its body is then cut short. */
    let answered: (() => void) | undefined;
    const finish = (result: PostResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.signal?.removeEventListener("abort", onAbort);
      resolve(result);
    };
    const fail = (error: string): void => {
      finish({ kind: "error", error, latencyMs: request.wallNow() - started });
      sent?.destroy();
    };
    const onAbort = (): void => fail("aborted");
    const timer = setTimeout(() => {
      if (answered === undefined) return fail("timeout");
      answered();
      sent?.destroy();
    }, request.timeoutMs);
    if (request.signal?.aborted === true) return fail("aborted");
    request.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const url = new URL(request.url);
      const send = url.protocol === "https:" ? httpsRequest : httpRequest;
      const agent = agents[url.protocol as keyof typeof agents];
      if (agent === undefined) return fail(`unsupported protocol ${url.protocol}`);
      const body = typeof request.body === "string" ? Buffer.from(request.body, "utf8") : request.body;
      sent = send(url, {
        method: "POST",
        agent,
        headers: { ...request.headers, "content-length": String(body.byteLength) },
      });
      sent.on("error", (error: NodeJS.ErrnoException) => {
        if (answered === undefined) fail(describeError(error));
        else answered();
      });
      sent.on("response", (response) => {
        const status = response.statusCode ?? 0;
        answered = (): void => {
          const retryAfterMs = RETRY_AFTER_STATUSES.has(status)
            ? parseRetryAfter(headerValue(response.headers["retry-after"]), request.wallNow())
            : undefined;
          const latencyMs = request.wallNow() - started;
          finish({ kind: "response", status, latencyMs, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });
        };
        drainBody(response, MAX_RESPONSE_BODY_BYTES, answered);
      });
      sent.end(body);
    } catch (error) {
      // A URL or header node:http refuses before sending.
      fail(describeError(error as NodeJS.ErrnoException));
    }
    return undefined;
  });
}

/**
 * Milliseconds a `Retry-After` header asks for: delta seconds or an HTTP date
 * (against `nowMs`, the wall clock the receiver wrote it by). Undefined when
 * absent or unparsable.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Every HTTP-date form starts with a day name; Date.parse alone accepts "-5" as a year.
  if (!/^[A-Za-z]{3}/.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

function headerValue(value: string | string[] | undefined): string | null {
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}

/**
 * Reads and discards a body up to `limit` bytes, then calls `done` once: at
 * its end (the socket then serves the next attempt), or past the limit (the
 * socket is destroyed). A body cut short (reset, timeout) still counts as
 * answered: the status already came, and decides.
 */
function drainBody(response: IncomingMessage, limit: number, done: () => void): void {
  let read = 0;
  let called = false;
  const once = (): void => {
    if (called) return;
    called = true;
    done();
  };
  response.on("data", (chunk: Buffer) => {
    read += chunk.byteLength;
    if (read > limit) {
      once();
      response.destroy();
    }
  });
  response.on("end", once);
  response.on("error", once);
  response.on("aborted", once);
  response.on("close", once);
}

function describeError(error: NodeJS.ErrnoException): string {
  if (error.code === "ECONNREFUSED") return "connection_refused";
  if (typeof error.code === "string") return error.code.toLowerCase();
  return error.message;
}
