/**
 * The Redis store's orders: placing, changing, reading, listing and
 * evicting them. Each atomic step is one script on the customer's keys
 * (`redis-scripts.ts`); the order's entries in the indexes across customers
 * (`order-index.ts`) are written by commands of their own on the order's
 * index shard, sent in the same round trip, just before it.
 */
import type { EvictedOrder, IdempotencyRecord, Order } from "../domain/model.ts";
import { byCreation } from "../domain/order-page.ts";
import { candidateOf, evictedRecordOf } from "../domain/order-retention.ts";
import type { OrderPage, OrderPageQuery, PlaceResult, Store } from "../domain/ports.ts";
import type { OrderIndex } from "./order-index.ts";
import type { RedisClient } from "./redis-client.ts";
import { bookField, type CustomerKeys, type SharedKeys, walletField } from "./redis-keys.ts";
import type { RedisScriptName } from "./redis-scripts.ts";
import { type PageVerdict, readSequencePage } from "./sequence-page.ts";

/** What the order methods share with the rest of the store. */
export interface OrderContext {
  readonly redis: RedisClient;
  readonly shared: SharedKeys;
  readonly index: OrderIndex;
  keysOf(customerId: string): CustomerKeys;
  run(name: RedisScriptName, ...args: (string | number)[]): Promise<unknown>;
}

type OrderReads = Pick<
  Store,
  | "getOrder"
  | "getOrderByReference"
  | "listOrders"
  | "listOrderPage"
  | "listEvictionCandidates"
  | "countOrders"
  | "countOrdersByStatus"
>;
type OrderWrites = Pick<Store, "placeOrder" | "updateOrderIf">;
type Evictions = Pick<Store, "evictOrder" | "getEvictedOrder" | "getEvictedOrderByReference" | "countEvictedOrders">;

export function assertCents(cents: number): void {
  if (!Number.isSafeInteger(cents) || cents < 0)
    throw new RangeError(`cents must be a safe integer >= 0, got ${cents}`);
}

/** The keys of the placement script, in its order. */
function placementKeys(keys: CustomerKeys): string[] {
  return [keys.customer, keys.book, keys.orderSequence, keys.evicted, keys.evictedUntil, keys.idempotencyExpiry];
}

function matchesPage(order: Order, query: OrderPageQuery): boolean {
  return (
    (query.customerId === undefined || order.customerId === query.customerId) &&
    (query.status === undefined || order.status === query.status) &&
    (query.reference === undefined || order.reference === query.reference) &&
    (query.referencePrefix === undefined || order.reference.startsWith(query.referencePrefix)) &&
    (query.from === undefined || order.createdAt >= query.from) &&
    (query.to === undefined || order.createdAt <= query.to)
  );
}

/** The placement script's reply as the port's result. */
function placeResult(order: Order, reply: [string, string?, string?]): PlaceResult {
  switch (reply[0]) {
    case "placed":
      return { kind: "placed" };
    case "existing":
      return { kind: "existing", record: JSON.parse(reply[1] ?? "{}") as IdempotencyRecord };
    case "duplicate":
      return { kind: "duplicate_reference" };
    case "insufficient":
      return {
        kind: "insufficient",
        wallet: { shortcode: order.shortcode, balanceCents: Number(reply[1]), currency: reply[2] ?? "KES" },
      };
    default:
      return { kind: "unknown_wallet" };
  }
}

export function orderWrites({ index, keysOf, run }: OrderContext): OrderWrites {
  return {
    async placeOrder({ order, key, now }) {
      const keys = keysOf(order.customerId);
      await index.ready();
      // The index goes first, in the same round trip, so an order is never stored without its entries.
      const [indexed, reply] = await Promise.all([
        index.add(order.id, order.customerId, order.createdAt),
        run(
          "ahPlaceOrder",
          ...placementKeys(keys),
          walletField(order.shortcode),
          order.amountCents,
          order.reference,
          order.id,
          JSON.stringify(order),
          now,
          key?.key ?? "",
          key === undefined ? "" : JSON.stringify(key),
          key?.expiresAt ?? 0,
        ) as Promise<[string, string?, string?]>,
      ]);
      // A refused order leaves the indexes again; a process killed in between leaves an entry naming no order.
      if (reply[0] !== "placed" && indexed) await index.remove(order.id);
      return placeResult(order, reply);
    },
    async updateOrderIf(order, expectedVersion, refund) {
      const keys = keysOf(order.customerId);
      const args = [order.id, JSON.stringify(order), expectedVersion];
      if (refund === true) {
        assertCents(order.amountCents);
        args.push(walletField(order.shortcode), order.amountCents);
      }
      return (await run("ahUpdateOrder", keys.book, keys.customer, ...args)) === 1;
    },
  };
}

export function orderReads({ redis, shared, index, keysOf }: OrderContext): OrderReads {
  /** Every order, read whole. */
  const allOrders = async (): Promise<Order[]> => readOrders(await index.ownersOf(await index.allIds()));
  async function readOrders(pairs: readonly (readonly [customerId: string, id: string])[]): Promise<Order[]> {
    if (pairs.length === 0) return [];
    // Sent together, not as one pipeline: on a cluster the customers' slots lie on several nodes.
    const replies = await Promise.all(
      pairs.map(([customerId, id]) => redis.hget(keysOf(customerId).book, bookField.order(id))),
    );
    return replies.flatMap((json) => (json === null ? [] : [JSON.parse(json) as Order]));
  }
  async function getOrderByReference(customerId: string, reference: string): Promise<Order | undefined> {
    const id = await redis.hget(keysOf(customerId).book, bookField.reference(reference));
    return id === null ? undefined : (await readOrders([[customerId, id]]))[0];
  }
  async function page(query: OrderPageQuery): Promise<OrderPage> {
    const { customerId } = query;
    const verdict = (order: Order): PageVerdict => (matchesPage(order, query) ? "keep" : "skip");
    const found =
      customerId === undefined
        ? await index.page(query, async (ids) => readOrders(await index.ownersOf(ids)), verdict)
        : await readSequencePage(
            redis,
            keysOf(customerId).orderSequence,
            query,
            (ids) => readOrders(ids.map((id) => [customerId, id] as const)),
            verdict,
          );
    return { orders: found.items, nextCursor: found.nextCursor };
  }
  return {
    async getOrder(id, customerId) {
      // An order's customer never changes: found among its orders, it is the order; else the index says whose it is.
      const found = customerId === undefined ? undefined : (await readOrders([[customerId, id]]))[0];
      return found ?? (await readOrders(await index.ownersOf([id])))[0];
    },
    getOrderByReference,
    async listOrders(filter) {
      const customerId = filter?.customerId;
      if (customerId === undefined) return allOrders();
      const ids = await redis.zrange(keysOf(customerId).orderSequence, 0, -1);
      return readOrders(ids.map((id) => [customerId, id] as const));
    },
    async listOrderPage(query) {
      if (query.reference === undefined) return page(query);
      // An exact reference names at most one order per customer: no scan.
      const customerIds = query.customerId === undefined ? await redis.smembers(shared.customers) : [query.customerId];
      const found: Order[] = [];
      for (const customerId of customerIds) {
        const order = await getOrderByReference(customerId, query.reference);
        if (order !== undefined && matchesPage(order, query)) found.push(order);
      }
      found.sort(byCreation(query));
      return { orders: found.slice(0, query.limit), nextCursor: null };
    },
    async listEvictionCandidates(query) {
      const { orders, nextCursor } = await page(query);
      return { candidates: orders.map(candidateOf), nextCursor };
    },
    countOrders: () => index.count(),
    async countOrdersByStatus() {
      // The orders are read whole: no per-status index is kept, as every status change would have to move one.
      const counts = new Map<number, number>();
      for (const order of await allOrders()) {
        counts.set(order.status, (counts.get(order.status) ?? 0) + 1);
      }
      return counts;
    },
  };
}

export function evictions(context: OrderContext, getOrder: Store["getOrder"]): Evictions {
  const { redis, shared, index, keysOf, run } = context;
  async function keptEvicted(customerId: string, id: string | null, now: number): Promise<EvictedOrder | undefined> {
    if (id === null) return undefined;
    const json = await redis.hget(keysOf(customerId).evicted, id);
    const record = json === null ? undefined : (JSON.parse(json) as EvictedOrder);
    return record !== undefined && record.keptUntil > now ? record : undefined;
  }
  /** Forgets evicted records whose time has passed, a bounded batch at a time. */
  async function sweepEvicted(now: number): Promise<void> {
    const ended = await redis.zrangebyscore(shared.evicted, "-inf", now, "LIMIT", 0, 100);
    for (const member of ended) {
      const [customerId = "", id = ""] = member.split("\u0000");
      const keys = keysOf(customerId);
      const record = await redis.hget(keys.evicted, id);
      const batch = redis.multi().hdel(keys.evicted, id).hdel(keys.evictedUntil, id);
      if (record !== null) {
        const { reference } = JSON.parse(record) as EvictedOrder;
        const field = bookField.reference(reference);
        if ((await redis.hget(keys.book, field)) === id) batch.hdel(keys.book, field);
      }
      await batch.exec();
      await index.forgetOwner(id);
      await redis.zrem(shared.evicted, member);
    }
  }
  return {
    async evictOrder(id, expectedVersion, keepUntil, now) {
      const order = await getOrder(id);
      if (order === undefined) return false;
      const keys = keysOf(order.customerId);
      const record = evictedRecordOf(order, keepUntil);
      const removed = await run(
        "ahEvictOrder",
        keys.book,
        keys.orderSequence,
        keys.evicted,
        keys.evictedUntil,
        id,
        expectedVersion,
        keepUntil,
        now,
        order.reference,
        JSON.stringify(record),
      );
      if (removed !== 1) return false;
      await index.unlist(id);
      if (keepUntil > now) await redis.zadd(shared.evicted, keepUntil, `${order.customerId}\u0000${id}`);
      else await index.forgetOwner(id);
      await sweepEvicted(now);
      return true;
    },
    async getEvictedOrder(id, now) {
      const [pair] = await index.ownersOf([id]);
      return pair === undefined ? undefined : keptEvicted(pair[0], id, now);
    },
    async getEvictedOrderByReference(customerId, reference, now) {
      const id = await redis.hget(keysOf(customerId).book, bookField.reference(reference));
      return keptEvicted(customerId, id, now);
    },
    async countEvictedOrders(now) {
      await sweepEvicted(now);
      return redis.zcount(shared.evicted, `(${now}`, "+inf");
    },
  };
}
