/**
 * One HTTP attempt of a webhook: POST, bounded by a per-attempt timeout,
 * redirects not followed (a 3xx is a failed attempt, as Standard Webhooks
 * says), the answer classified without throwing.
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
    // Read to the end (bounded by the same timeout) so the connection is kept alive
    // and reused; cancelling would destroy it and cost a new connect per attempt.
    await response.arrayBuffer().catch(() => undefined);
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

function describeError(error: unknown, timeout: AbortSignal): string {
  if (timeout.aborted) return "timeout";
  if (error instanceof Error && error.name === "AbortError") return "aborted";
  const cause = error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (cause?.code === "ECONNREFUSED") return "connection_refused";
  if (typeof cause?.code === "string") return cause.code.toLowerCase();
  if (typeof cause?.message === "string") return cause.message;
  return error instanceof Error ? error.message : String(error);
}
