/**
 * The memory store's orders: the orders themselves (settled ones packed by
 * the cold queue), each customer's references, the records evicted orders
 * leave, and the creation index that pages them. References and evicted
 * orders' records are kept as long as idempotency keys (a day by default),
 * so in `ByteMap`s, off V8's heap. Lifted out of the store's factory as
 * plain functions over one explicit {@link OrderTables}, because
 * these maps change together: a reference points at an order or at an
 * evicted order's record, and the index's slots at the orders. A call costs
 * what it did inside the closure (no object or closure is made per call).
 */
import type { EvictedOrder, EvictionCandidate, Order } from "../domain/model.ts";
import type { CandidatePage, CandidatePageQuery, OrderPage, OrderPageQuery } from "../domain/ports.ts";
import { byCreation } from "../domain/order-page.ts";
import { evictedRecordOf } from "../domain/order-retention.ts";
import { type ColdQueue, type ColdQueueOptions, createColdQueue } from "./cold-queue.ts";
import { type CreationIndex, createCreationIndex } from "./creation-index.ts";
import { ByteMap } from "./byte-map.ts";
import { freezeCopy } from "./freeze-copy.ts";
import { evictedEntry, evictedOf, keptUntilOf } from "./kept-evicted.ts";
import { keyOf } from "./kept-key.ts";
import { candidateOfStored, orderOf, PackedOrder, type StoredOrder, versionOf } from "./packed-order.ts";
import { dropExpiredFront, type Swept, sweepDue } from "./sweep-due.ts";

/** What the store holds of its orders; `sweptAt` is the evicted-order records' last sweep. */
export interface OrderTables extends Swept {
  readonly orders: Map<string, StoredOrder>;
  /** `customerId\0reference` → the id of the order, or of the evicted order still kept, holding it. */
  readonly references: ByteMap;
  /** id → what an evicted order left, as `KeptEvicted`; insertion (eviction) order is about expiry order too. */
  readonly evicted: ByteMap;
  readonly index: CreationIndex<StoredOrder>;
  /** Orders kept by current status, kept in step with `orders`: a metrics scrape asks without reading them. */
  readonly byStatus: Map<number, number>;
  readonly cold: ColdQueue;
  /** Whether an order is settled (final), so packed once it is no longer hot. */
  readonly settled: (order: Order) => boolean;
}

export function createOrderTables(settled: (order: Order) => boolean, packing: ColdQueueOptions): OrderTables {
  const orders = new Map<string, StoredOrder>();
  const cold = createColdQueue(packing, (id) => {
    const stored = orders.get(id);
    if (stored !== undefined && !(stored instanceof PackedOrder) && settled(stored)) {
      orders.set(id, new PackedOrder(stored));
    }
  });
  const index = createCreationIndex<StoredOrder>((id) => orders.get(id));
  const [references, evicted] = [new ByteMap(), new ByteMap()];
  return { orders, references, evicted, index, byStatus: new Map(), cold, settled, sweptAt: -Infinity };
}

/** Keeps a new version of an order (of `previous`, when there was one), and queues it for packing once it is settled. */
function keepOrder(tables: OrderTables, order: Order, previous?: StoredOrder): void {
  tables.orders.set(order.id, order);
  if (previous !== undefined) counted(tables, previous.status, -1);
  counted(tables, order.status, 1);
  if (tables.settled(order)) tables.cold.settled(order.id);
}

function counted(tables: OrderTables, status: number, change: number): void {
  const count = (tables.byStatus.get(status) ?? 0) + change;
  if (count === 0) tables.byStatus.delete(status);
  else tables.byStatus.set(status, count);
}

export function readOrder(tables: OrderTables, id: string | undefined): Order | undefined {
  const stored = id === undefined ? undefined : tables.orders.get(id);
  return stored === undefined ? undefined : orderOf(stored);
}

/** The id of the order (or evicted order) holding a customer's reference. */
export function idByReference(tables: OrderTables, customerId: string, reference: string): string | undefined {
  return tables.references.get(keyOf(customerId, reference));
}

function takeReference(tables: OrderTables, customerId: string, reference: string, id: string): void {
  tables.references.set(keyOf(customerId, reference), id);
}

/** Forgets an evicted order's reference, unless a newer order has taken it since. */
function freeReference(tables: OrderTables, customerId: string, reference: string, id: string): void {
  const composite = keyOf(customerId, reference);
  if (tables.references.get(composite) === id) tables.references.delete(composite);
}

/** Keeps an order whose reference the caller has found free. */
export function addOrder(tables: OrderTables, order: Order): void {
  const stored = freezeCopy(order);
  takeReference(tables, stored.customerId, stored.reference, stored.id);
  keepOrder(tables, stored);
  tables.index.add(stored);
}

/** Stores `order` when the stored one still has `expectedVersion` history entries. */
export function replaceOrderIf(tables: OrderTables, order: Order, expectedVersion: number): boolean {
  const current = tables.orders.get(order.id);
  if (current === undefined || versionOf(current) !== expectedVersion) return false;
  keepOrder(tables, freezeCopy(order, current), current);
  return true;
}

export function keptEvicted(tables: OrderTables, id: string | undefined, now: number): EvictedOrder | undefined {
  const kept = id === undefined ? undefined : tables.evicted.get(id);
  return id !== undefined && kept !== undefined && keptUntilOf(kept) > now ? evictedOf(id, kept) : undefined;
}

/** Every evicted order's record still kept, in eviction order. */
export function savedEvicted(tables: OrderTables): EvictedOrder[] {
  return Array.from(tables.evicted.entries(), ([id, kept]) => evictedOf(id, kept));
}

/** Drops evicted-order records whose retention ended, from the front (all of them when `force`d). */
export function sweepEvicted(tables: OrderTables, now: number, force = false): void {
  if (!sweepDue(tables, now) && !force) return;
  dropExpiredFront(tables.evicted, now, keptUntilOf, (id, kept) => {
    const record = evictedOf(id, kept);
    freeReference(tables, record.customerId, record.reference, id);
  });
}

/** Whether an order, or an evicted order still kept, holds the reference; frees it from one whose time is up. */
export function referenceTaken(tables: OrderTables, customerId: string, reference: string, now: number): boolean {
  const id = idByReference(tables, customerId, reference);
  if (id === undefined) return false;
  if (tables.orders.has(id)) return true;
  const kept = tables.evicted.get(id);
  if (kept !== undefined && keptUntilOf(kept) > now) return true;
  tables.evicted.delete(id);
  freeReference(tables, customerId, reference, id);
  return false;
}

/** Removes an order of `expectedVersion`, keeping its record until `keepUntil`; false when it changed or went. */
export function evictOrder(
  tables: OrderTables,
  id: string,
  expectedVersion: number,
  keepUntil: number,
  now: number,
  known: EvictionCandidate | undefined,
): boolean {
  const stored = tables.orders.get(id);
  if (stored === undefined || versionOf(stored) !== expectedVersion) return false;
  // The caller's copy is of this very version; a packed order is a candidate as it is.
  const order = known?.id === id && known.version === expectedVersion ? known : candidateOfStored(stored);
  tables.orders.delete(id);
  counted(tables, stored.status, -1);
  tables.index.removed(order.customerId);
  sweepEvicted(tables, now);
  if (keepUntil > now) {
    tables.evicted.set(id, evictedEntry(evictedRecordOf(order, keepUntil)));
  } else {
    freeReference(tables, order.customerId, order.reference, id);
  }
  return true;
}

export function listOrderPage(tables: OrderTables, query: OrderPageQuery): OrderPage {
  if (query.reference === undefined) {
    const { status, referencePrefix } = query;
    const page = tables.index.page(
      query,
      (order) =>
        (status === undefined || order.status === status) &&
        (referencePrefix === undefined || order.reference.startsWith(referencePrefix)),
    );
    return { orders: page.items.map(orderOf), nextCursor: page.nextCursor };
  }
  // An exact reference names at most one order per customer: no scan.
  const found: Order[] = [];
  // Only live orders are listed, so only customers with some in the index can hold one.
  const customerIds = query.customerId === undefined ? [...tables.index.customerIds()] : [query.customerId];
  for (const customerId of customerIds) {
    const order = readOrder(tables, idByReference(tables, customerId, query.reference));
    if (order !== undefined) found.push(order);
  }
  const matching = found
    .filter(
      (order) =>
        (query.status === undefined || order.status === query.status) &&
        (query.from === undefined || order.createdAt >= query.from) &&
        (query.to === undefined || order.createdAt <= query.to) &&
        (query.referencePrefix === undefined || order.reference.startsWith(query.referencePrefix)),
    )
    .sort(byCreation(query));
  return { orders: matching.slice(0, query.limit), nextCursor: null };
}

/** The scan's pages: the packed orders themselves, none unpacked. */
export function listEvictionCandidates(tables: OrderTables, query: CandidatePageQuery): CandidatePage {
  const page = tables.index.page(query);
  return { candidates: page.items.map(candidateOfStored), nextCursor: page.nextCursor };
}

export function countOrdersByStatus(tables: OrderTables): Map<number, number> {
  return new Map(tables.byStatus);
}

export function listOrders(tables: OrderTables, customerId: string | undefined): Order[] {
  const all = Array.from(tables.orders.values(), orderOf);
  return customerId === undefined ? all : all.filter((order) => order.customerId === customerId);
}

/** Forgets a customer's orders, evicted-order records and references. */
export function removeCustomerOrders(tables: OrderTables, customerId: string): void {
  for (const [id, order] of tables.orders) {
    if (order.customerId !== customerId) continue;
    tables.orders.delete(id);
    counted(tables, order.status, -1);
  }
  tables.index.dropCustomer(customerId);
  for (const [id, kept] of tables.evicted.entries()) {
    if (evictedOf(id, kept).customerId === customerId) tables.evicted.delete(id);
  }
  const prefix = keyOf(customerId, "");
  for (const composite of tables.references.keys()) {
    if (composite.startsWith(prefix)) tables.references.delete(composite);
  }
}

export function clearOrders(tables: OrderTables): void {
  tables.orders.clear();
  tables.byStatus.clear();
  tables.references.clear();
  tables.evicted.clear();
  tables.index.clear();
  tables.cold.clear();
}

/** Loads saved orders (in creation order) and evicted-order records (in eviction order) into emptied tables. */
export function loadOrders(
  tables: OrderTables,
  orders: readonly Order[],
  evictedOrders: readonly EvictedOrder[],
): void {
  for (const order of orders) {
    const stored = freezeCopy(order);
    keepOrder(tables, stored);
    tables.index.add(stored);
    takeReference(tables, stored.customerId, stored.reference, stored.id);
  }
  for (const record of evictedOrders) {
    tables.evicted.set(record.id, evictedEntry(record));
    takeReference(tables, record.customerId, record.reference, record.id);
  }
}
