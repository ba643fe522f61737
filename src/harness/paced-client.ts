/**
 * Requests no faster than the provider's stated cap (`rateLimit` in its
 * profile, §8 leaves it open). The harness's own concurrency (parallel
 * identical requests, several properties' sessions) would otherwise run
 * into the provider's 429s: those are waited out, but each wait costs a
 * `Retry-After`, and a run against a rate-limited sandbox spends its time
 * there. One pacer serves every client of a run, so the cap holds for the
 * run as a whole.
 */
import type { HttpClient } from "./http-client.ts";

export interface Pacer {
  /** Resolves when the next request may start. */
  slot(): Promise<void>;
}

/**
 * Start times spaced by 1/`requestsPerSecond`, in the order asked; `now`
 * and `sleep` are injected so the spacing is testable without waiting.
 *
 * @example
 * const pacer = createPacer(20); // a request every 50 ms at most
 * await pacer.slot();
 */
export function createPacer(
  requestsPerSecond: number,
  time: { now(): number; sleep(ms: number): Promise<void> } = {
    now: () => performance.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  },
): Pacer {
  const intervalMs = 1000 / requestsPerSecond;
  let nextStart = Number.NEGATIVE_INFINITY;
  return {
    async slot() {
      const now = time.now();
      const start = Math.max(now, nextStart);
      nextStart = start + intervalMs;
      if (start > now) await time.sleep(start - now);
    },
  };
}

export function pacedClient(client: HttpClient, pacer: Pacer | undefined): HttpClient {
  if (pacer === undefined) return client;
  return {
    baseUrl: client.baseUrl,
    onExchange: (listener) => client.onExchange(listener),
    async send(spec) {
      await pacer.slot();
      return client.send(spec);
    },
  };
}
