/**
 * What the dispatcher's steps (announce, attempt, record) share: the ports, the resolved settings, the
 * fair limiter, where attempts run, and the attempts in flight. The
 * dispatcher builds it once; announce and attempt read from it.
 */
import { setMaxListeners } from "node:events";
import type { DialectRenderer } from "../contract/provider-profile/render.ts";
import type { StatusTable } from "../contract/status-codes.ts";
import type { Clock, Random, Scheduler, Store } from "../domain/ports.ts";
import type { AttemptPlacement } from "./attempt-jobs.ts";
import type { FairLimiter } from "./fair-limiter.ts";
import type { DeliveryStore } from "./ports.ts";

/** The retry schedule, ms, and the relative jitter on each delay. */
export interface RetryPolicy {
  readonly schedule: readonly number[];
  readonly jitter: number;
}

export interface DispatchKit {
  readonly store: Store;
  readonly clock: Clock;
  readonly scheduler: Scheduler;
  readonly statusTable: StatusTable;
  /** Writes and signs every webhook in the provider's dialect. */
  readonly dialect: DialectRenderer;
  readonly deliveries: DeliveryStore;
  readonly placement: AttemptPlacement;
  readonly retry: RetryPolicy;
  /** The dispatcher's own stream: jitter is drawn as answers arrive and must not shift the ids of later orders. */
  readonly random: Random;
  /** Wall clock for `webhook-timestamp` and latencies. */
  readonly wallNow: () => number;
  readonly timeoutMs: number;
  /** Also announce intermediate (pending-class) statuses. */
  readonly intermediate: boolean;
  readonly limiter: FairLimiter;
  readonly flights: Flights;
}

/** The attempts in flight, and whether the dispatcher is closing. */
export interface Flights {
  /** True once closing began: no attempt starts. */
  readonly stopping: boolean;
  /** Aborts the requests still out at the closing deadline. */
  readonly signal: AbortSignal;
  /** Requests on the network right now (what a deadline cuts off). */
  readonly posting: number;
  track<T>(work: Promise<T>): Promise<T>;
  /** Counts one request on the network while `request` runs. */
  post<T>(request: () => Promise<T>): Promise<T>;
  /** Resolves when everything tracked so far has finished. */
  settle(): Promise<void>;
  /** Starts no more; waits for the work in flight until `deadline` aborts (at once without one), then aborts it. */
  land(deadline: AbortSignal | undefined): Promise<{ readonly cutOff: number }>;
}

export function createFlights(): Flights {
  const inFlight = new Set<Promise<unknown>>();
  const closing = new AbortController();
  // Every attempt in flight listens on this one signal; hundreds at once are normal, not a leak.
  setMaxListeners(0, closing.signal);
  let stopping = false;
  let posting = 0;
  const settle = async (): Promise<void> => {
    while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
  };
  return {
    get stopping() {
      return stopping;
    },
    signal: closing.signal,
    get posting() {
      return posting;
    },
    track(work) {
      inFlight.add(work);
      void work.finally(() => inFlight.delete(work)).catch(() => undefined);
      return work;
    },
    async post(request) {
      posting += 1;
      try {
        return await request();
      } finally {
        posting -= 1;
      }
    },
    settle,
    async land(deadline) {
      stopping = true;
      const given = untilAborted(deadline);
      while (inFlight.size > 0 && !(deadline?.aborted ?? true)) {
        await Promise.race([Promise.allSettled([...inFlight]), given]);
      }
      const cutOff = posting;
      closing.abort();
      await settle();
      return { cutOff };
    },
  };
}

/** Resolves when `signal` aborts; never without one. */
function untilAborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) resolve();
    else signal?.addEventListener("abort", () => resolve(), { once: true });
  });
}
