/**
 * What the clock will do next, for the dashboard's clock panel: pending
 * jobs, and when the earliest order step and webhook attempt are due.
 */
import { isFinalStatus, type StatusTable } from "../contract/status-codes.ts";
import { ORDER_STEP_JOB } from "../domain/lifecycle.ts";
import type { Clock, Scheduler, Store } from "../domain/ports.ts";
import { formatTiming, type Timing } from "../domain/timing.ts";
import type { ScheduleSummary } from "./admin-spec.ts";

export interface ScheduleSources {
  readonly clock: Clock;
  readonly store: Store;
  readonly scheduler: Scheduler;
  readonly statusTable: StatusTable;
  readonly timing: Timing;
  /** Due times (simulator ms) of scheduled webhook attempts. */
  readonly webhookDueTimes: () => Promise<number[]>;
}

const earliest = (times: readonly (number | undefined)[]): string | null => {
  const known = times.filter((t): t is number => t !== undefined);
  return known.length === 0 ? null : new Date(Math.min(...known)).toISOString();
};

/** A standard normal's 95th percentile: a lognormal's 5 %–95 % band is its median times e^(∓1.645 σ). */
const Z95 = 1.6449;

/** Where most pending → final times fall under `timing`: its 5th to 95th percentile (all of a fixed or uniform one). */
function timingBand(timing: Timing): { lowMs: number; highMs: number } {
  switch (timing.kind) {
    case "fixed":
      return { lowMs: timing.ms, highMs: timing.ms };
    case "uniform":
      return { lowMs: timing.minMs, highMs: timing.maxMs };
    case "lognormal":
      return {
        lowMs: Math.round(timing.medianMs * Math.exp(-Z95 * timing.sigma)),
        highMs: Math.round(timing.medianMs * Math.exp(Z95 * timing.sigma)),
      };
    case "quantiles":
      return { lowMs: timing.points[0]?.ms ?? 0, highMs: timing.points.at(-1)?.ms ?? 0 };
  }
}

/** Orders in a pending-class status, counted by status without reading an order (the dashboard asks once a second). */
async function countPending(store: Store, statusTable: StatusTable): Promise<number> {
  let pending = 0;
  for (const [status, count] of await store.countOrdersByStatus()) {
    if (!isFinalStatus(statusTable, status)) pending += count;
  }
  return pending;
}

/**
 * The next order step is asked of the scheduler, not read from pending
 * orders: a final order may still have a step to come (a success reversed
 * later), and only the scheduler knows every step it holds.
 */
export async function summariseSchedule(sources: ScheduleSources): Promise<ScheduleSummary> {
  return {
    mode: sources.clock.virtual === true ? "virtual" : "real",
    now: new Date(sources.clock.now()).toISOString(),
    pendingEvents: await sources.scheduler.size(),
    pendingOrders: await countPending(sources.store, sources.statusTable),
    nextOrderStepAt: earliest([await sources.scheduler.nextDueAt(ORDER_STEP_JOB)]),
    configuredTiming: { text: formatTiming(sources.timing), ...timingBand(sources.timing) },
    nextWebhookAttemptAt: earliest(await sources.webhookDueTimes()),
  };
}
