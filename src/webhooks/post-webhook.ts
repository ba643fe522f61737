/**
 * One HTTP attempt of a webhook: POST, bounded by a per-attempt timeout,
 * redirects not followed (a 3xx is a failed attempt, as Standard Webhooks
 * says), the answer classified without throwing. At most
 * {@link MAX_RESPONSE_BODY_BYTES} of the answer's body are read: a receiver
 * that streams without end costs that much and no more.
 */
import { parseRetryAfter } from "./schedule.ts";

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

export async function postWebhook(request: PostRequest): Promise<PostResult> {
  const started = request.wallNow();
  const timeout = AbortSignal.timeout(request.timeoutMs);
  // One short-lived controller per attempt rather than AbortSignal.any() with the
  // dispatcher's long-lived signal, which keeps a reference per call on Node 20.
  const controller = new AbortController();
  const abort = () => controller.abort();
  timeout.addEventListener("abort", abort, { once: true });
  request.signal?.addEventListener("abort", abort, { once: true });
  if (request.signal?.aborted === true) controller.abort();
  const signal = controller.signal;
  try {
    const response = await fetch(request.url, {
      method: "POST",
      headers: request.headers,
      body: request.body,
      redirect: "manual",
      signal,
    });
    await drainBody(response.body, MAX_RESPONSE_BODY_BYTES);
    const latencyMs = request.wallNow() - started;
    const retryAfterMs = RETRY_AFTER_STATUSES.has(response.status)
      ? parseRetryAfter(response.headers.get("retry-after"), request.wallNow())
      : undefined;
    return {
      kind: "response",
      status: response.status,
      latencyMs,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
  } catch (error) {
    return { kind: "error", error: describeError(error, timeout), latencyMs: request.wallNow() - started };
  } finally {
    timeout.removeEventListener("abort", abort);
    request.signal?.removeEventListener("abort", abort);
  }
}

/**
 * Reads and discards a body up to `limit` bytes, within the attempt's timeout
 * (the fetch signal ends the stream). A body read to its end keeps the
 * connection alive for the next attempt; a longer one is cancelled, which
 * destroys the connection.
 */
async function drainBody(body: ReadableStream<Uint8Array> | null, limit: number): Promise<void> {
  if (body === null) return;
  const reader = body.getReader();
  let read = 0;
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) return;
      read += chunk.value.byteLength;
      if (read > limit) {
        await reader.cancel().catch(() => undefined);
        return;
      }
    }
  } catch {
    // Timed out, reset or aborted mid-body: the status already came, and decides.
  } finally {
    reader.releaseLock();
  }
}

function describeError(error: unknown, timeout: AbortSignal): string {
  if (timeout.aborted) return "timeout";
  if (error instanceof Error && error.name === "AbortError") return "aborted";
  const cause = error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (cause?.code === "ECONNREFUSED") return "connection_refused";
  if (typeof cause?.code === "string") return cause.code.toLowerCase();
  if (typeof cause?.message === "string") return cause.message;
  return error instanceof Error ? error.message : String(error);
}
