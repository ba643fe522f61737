/**
 * What the clock will do next, for the dashboard's clock panel: pending
 * jobs, and when the earliest order step and webhook attempt are due.
 */
import { isFinalStatus, type StatusTable } from "../contract/status-codes.ts";
import type { Order } from "../domain/model.ts";
import type { Clock, OrderPage, Scheduler, Store } from "../domain/ports.ts";
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

/** Orders read per page while looking for the pending ones. */
const PAGE = 1_000;

/**
 * The orders not yet final. Reading every order back whole held the event
 * loop 60 ms with 200,000 kept, most of them final and packed; the dashboard
 * asks once a second under load. Counts by status come without reading an
 * order, and a page filtered by status looks at a packed order without
 * unpacking it. Pending orders are mostly the newest, so each status is
 * read newest first until all its orders are found.
 */
async function pendingOrders(store: Store, statusTable: StatusTable): Promise<Order[]> {
  const pending: Order[] = [];
  for (const [status, count] of await store.countOrdersByStatus()) {
    if (isFinalStatus(statusTable, status)) continue;
    let found = 0;
    let cursor: string | null = null;
    do {
      const page: OrderPage = await store.listOrderPage({
        status,
        newestFirst: true,
        limit: PAGE,
        ...(cursor === null ? {} : { cursor }),
      });
      pending.push(...page.orders);
      found += page.orders.length;
      cursor = page.nextCursor;
    } while (cursor !== null && found < count);
  }
  return pending;
}

export async function summariseSchedule(sources: ScheduleSources): Promise<ScheduleSummary> {
  const pending = await pendingOrders(sources.store, sources.statusTable);
  return {
    mode: sources.clock.virtual === true ? "virtual" : "real",
    now: new Date(sources.clock.now()).toISOString(),
    pendingEvents: await sources.scheduler.size(),
    pendingOrders: pending.length,
    nextOrderStepAt: earliest(pending.map(nextStepAt)),
    nextWebhookAttemptAt: earliest(await sources.webhookDueTimes()),
  };
}
