/**
 * What the clock will do next, for the dashboard's clock panel: pending
 * jobs, and when the earliest order step and webhook attempt are due.
 */
import { isFinalStatus, type StatusTable } from "../contract/status-codes.ts";
import type { Order } from "../domain/model.ts";
import type { Clock, Scheduler, Store } from "../domain/ports.ts";
import type { ScheduleSummary } from "./admin-spec.ts";

export interface ScheduleSources {
  readonly clock: Clock;
  readonly store: Store;
  readonly scheduler: Scheduler;
  readonly statusTable: StatusTable;
  /** Due times (simulator ms) of scheduled webhook attempts. */
  readonly webhookDueTimes: () => Promise<number[]>;
}

/** When a pending order's next planned step is due: each step counts from the one before. */
function nextStepAt(order: Order): number | undefined {
  const step = order.plan?.steps[order.history.length - 1];
  const last = order.history.at(-1);
  return step === undefined || last === undefined ? undefined : last.at + step.afterMs;
}

const earliest = (times: readonly (number | undefined)[]): string | null => {
  const known = times.filter((t): t is number => t !== undefined);
  return known.length === 0 ? null : new Date(Math.min(...known)).toISOString();
};

export async function summariseSchedule(sources: ScheduleSources): Promise<ScheduleSummary> {
  const pending = (await sources.store.listOrders()).filter((o) => !isFinalStatus(sources.statusTable, o.status));
  return {
    mode: sources.clock.virtual === true ? "virtual" : "real",
    now: new Date(sources.clock.now()).toISOString(),
    pendingEvents: await sources.scheduler.size(),
    pendingOrders: pending.length,
    nextOrderStepAt: earliest(pending.map(nextStepAt)),
    nextWebhookAttemptAt: earliest(await sources.webhookDueTimes()),
  };
}
