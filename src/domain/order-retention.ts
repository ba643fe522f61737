/**
 * The order cap. An idempotency key binds its order for the key retention;
 * beyond the cap the oldest *final* orders are evicted anyway, each leaving
 * a small `EvictedOrder` until its retention ends, so a replay still gets the
 * same id and status and a lookup says `order_evicted`. Nothing pending is
 * evicted, nor anything a guard (the webhooks: an undelivered message) holds.
 *
 * Eviction runs after an insert that takes the count over the cap, in one
 * batch that makes room for a few more, so the scan from the oldest order
 * (past the pending ones) is paid once per batch, not once per order. A
 * batch gives way to other work every {@link ORDERS_PER_TURN} orders: an
 * in-memory store answers without ever yielding, and a batch of a thousand
 * evictions in one stretch would hold every other request back.
 *
 * Far below the cap an insert does not count the orders (a round trip on a
 * shared store): the count is taken again once a sixteenth of the room the
 * last count left has been used by this process's inserts, and at every
 * insert at the cap. One process therefore finds the cap passed at the very
 * insert that passes it; up to sixteen processes sharing a store, inserting
 * alike, cannot pass it between two counts, and more pass it by a few orders
 * before the next count evicts them.
 */
import { isFinalStatus, type StatusTable } from "../contract/status-codes.ts";
import type { CompactOrder, EvictedOrder, EvictionCandidate, Order } from "./model.ts";
import type { Clock, Store } from "./ports.ts";

/**
 * About 1.1 KB of heap per final order with its key and delivered webhook
 * (bench/retention.ts; settled records are kept packed): 300,000 keep about
 * 330 MB of heap, and RSS stays well under 1.5 GB with the evicted orders'
 * compact records and a day of keys besides.
 */
export const DEFAULT_MAX_ORDERS = 300_000;

/** Whether an order is settled (final) under a status table: what the memory store packs once cold. */
export const finalIn =
  (statusTable: StatusTable) =>
  (order: Order): boolean =>
    isFinalStatus(statusTable, order.status);

/** What the eviction scan reads of an order kept as it is. */
export function candidateOf(order: Order): EvictionCandidate {
  const { id, customerId, reference, status, message, createdAt, updatedAt } = order;
  return { id, customerId, reference, status, message, createdAt, updatedAt, version: order.history.length };
}

/** What an evicted order leaves while its key is retained: enough to replay and to answer a lookup. */
export function evictedRecordOf(order: CompactOrder, keptUntil: number): EvictedOrder {
  return {
    id: order.id,
    customerId: order.customerId,
    reference: order.reference,
    status: order.status,
    message: order.message,
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
    keptUntil,
  };
}

/** Orders read per page of the eviction scan. */
const SCAN_PAGE = 512;
/** Orders looked at between two turns of the event loop. */
const ORDERS_PER_TURN = 64;

/** Share of the room left under the cap that inserts may use before the orders are counted again. */
const COUNT_FRACTION = 16;

/** Lets I/O and timers run (a macrotask: resolved promises alone never let them in). */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A part of the simulator that may hold an order back from eviction, and is told of evictions. */
export interface RetentionGuard {
  /** False while the order still has work to do (an undelivered webhook). */
  canEvict(order: EvictionCandidate): Promise<boolean>;
  /** The orders just evicted: forget what was kept for them. */
  evicted(orders: readonly EvictionCandidate[]): Promise<void>;
}

export interface RetentionStats {
  readonly maxOrders: number;
  readonly keyLifetimeMs: number;
  /** Orders kept in full. */
  readonly retainedOrders: number;
  /** Evicted orders whose compact record is still kept. */
  readonly evictedRecords: number;
  /** Orders evicted since start. */
  readonly evictedOrders: number;
}

export interface OrderRetention {
  /** Evicts a batch when the count is over the cap; called after every insert (counts only now and then, far below it). */
  afterInsert(): Promise<void>;
  addGuard(guard: RetentionGuard): void;
  stats(): Promise<RetentionStats>;
}

export interface OrderRetentionDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly statusTable: StatusTable;
  readonly maxOrders: number;
  readonly keyLifetimeMs: number;
  /** Told once, at the first eviction (the simulator logs it). */
  readonly onFirstEviction?: (message: string) => void;
}

/**
 * @example
 * const retention = createOrderRetention({ store, clock, statusTable, maxOrders: 1_000, keyLifetimeMs: 86_400_000 });
 * await retention.afterInsert(); // evicts the oldest final orders once more than 1,000 are kept
 */
export function createOrderRetention(deps: OrderRetentionDeps): OrderRetention {
  const { store, clock, statusTable, maxOrders, keyLifetimeMs } = deps;
  if (!(Number.isSafeInteger(maxOrders) && maxOrders >= 1)) throw new RangeError("maxOrders must be an integer >= 1");
  // Room made per batch: 1 % of the cap, at most 1,024.
  const slack = Math.min(1_024, Math.floor(maxOrders / 100));
  const guards: RetentionGuard[] = [];
  let evictedOrders = 0;
  let running = false;
  /** After a batch that found too little to evict, wait for this count before scanning again. */
  let nextScanAt = 0;
  /** Inserts since the orders were last counted, and how many may pass before they are counted again. */
  let uncounted = 0;
  let countAfter = 1;

  async function evictable(order: EvictionCandidate): Promise<boolean> {
    if (!isFinalStatus(statusTable, order.status)) return false;
    for (const guard of guards) if (!(await guard.canEvict(order))) return false;
    return true;
  }

  async function evictBatch(wanted: number): Promise<number> {
    const gone: EvictionCandidate[] = [];
    let cursor: string | undefined;
    // Each order is looked at once per batch; a batch never goes round again.
    for (;;) {
      const query = { limit: SCAN_PAGE, ...(cursor === undefined ? {} : { cursor }) };
      const page = await store.listEvictionCandidates(query);
      for (const [at, order] of page.candidates.entries()) {
        if (gone.length >= wanted) break;
        if (at % ORDERS_PER_TURN === ORDERS_PER_TURN - 1) await nextTurn();
        if (!(await evictable(order))) continue;
        const now = clock.now();
        if (await store.evictOrder(order.id, order.version, order.createdAt + keyLifetimeMs, now, order)) {
          gone.push(order);
        }
      }
      if (gone.length >= wanted || page.nextCursor === null) break;
      cursor = page.nextCursor;
    }
    if (gone.length > 0) {
      if (evictedOrders === 0) {
        deps.onFirstEviction?.(
          `order cap of ${maxOrders} reached: evicting the oldest final orders (counted in GET /_sim/stats)`,
        );
      }
      evictedOrders += gone.length;
      for (const guard of guards) await guard.evicted(gone);
    }
    return gone.length;
  }

  return {
    async afterInsert() {
      uncounted++;
      if (running || uncounted < countAfter) return;
      uncounted = 0;
      const count = await store.countOrders();
      countAfter = Math.max(1, Math.floor((maxOrders - count) / COUNT_FRACTION));
      if (count <= maxOrders || count < nextScanAt) return;
      running = true;
      try {
        const wanted = count - maxOrders + slack;
        const evicted = await evictBatch(wanted);
        nextScanAt = evicted < wanted ? count - evicted + Math.max(slack, 1) : 0;
      } finally {
        running = false;
      }
    },
    addGuard(guard) {
      guards.push(guard);
    },
    async stats() {
      const now = clock.now();
      return {
        maxOrders,
        keyLifetimeMs,
        retainedOrders: await store.countOrders(),
        evictedRecords: await store.countEvictedOrders(now),
        evictedOrders,
      };
    },
  };
}
