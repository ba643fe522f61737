/**
 * The DeliveryStore on Redis: simulators sharing a Redis share the delivery
 * log, so the admin API of any of them lists every delivery, and whichever
 * process claims a delivery's next attempt finds it.
 *
 * A customer's deliveries share its hash tag `{customerId}` (one hash slot,
 * like the Store's records); the indexes across customers share the tag
 * `{deliveries}` and are written around the customer's step, as separate
 * calls. `update` is a compare-and-set on the record's JSON, retried on
 * conflict, so concurrent read-modify-writes from any process never lose
 * one another's change. Records are JSON: every read is a fresh copy.
 */
import { type RedisClient, unlinkMatching } from "./redis-client.ts";
import { luaScript } from "./lua-script.ts";
import { readSequencePage } from "./sequence-page.ts";
import { matchesDeliveryFilter as matches } from "../webhooks/delivery-filter.ts";
import type { Delivery, DeliveryAttempt, DeliveryStore } from "../webhooks/ports.ts";

export interface RedisDeliveryStoreOptions {
  /** Prefix of every key (default `ah:`), as the Redis Store's. */
  readonly prefix?: string;
}

/** Records read per round trip when a listing reads many. */
const READ_CHUNK = 500;
/** Compare-and-set tries before `update` gives up: only a livelock gets there. */
const MAX_UPDATE_TRIES = 1_000;

/** Keys of one customer's deliveries, under its hash tag. */
interface CustomerDeliveryKeys {
  /** Hash: delivery id → delivery JSON. */
  readonly records: string;
  /** Sorted set: delivery id by creation sequence. */
  readonly sequence: string;
  /** Hash: order id → its deliveries' ids, space-separated, in creation order. */
  readonly orders: string;
  /** List: one delivery's attempts as JSON, in attempt order. */
  attempts(deliveryId: string): string;
}

/** The indexes across customers, under the tag `{deliveries}`. */
interface SharedDeliveryKeys {
  /** String: the creation sequence counter. */
  readonly counter: string;
  /** Sorted set: every delivery id by creation sequence. */
  readonly all: string;
  /** Hash: delivery id → customer id. */
  readonly owners: string;
  /** Hash: order id → customer id. */
  readonly orders: string;
}

function customerDeliveryKeys(prefix: string, customerId: string): CustomerDeliveryKeys {
  const base = `${prefix}{${customerId}}:dlv:`;
  return {
    records: `${base}records`,
    sequence: `${base}sequence`,
    orders: `${base}orders`,
    attempts: (deliveryId) => `${base}attempts:${deliveryId}`,
  };
}

function sharedDeliveryKeys(prefix: string): SharedDeliveryKeys {
  const base = `${prefix}{deliveries}:`;
  return { counter: `${base}sequence`, all: `${base}all`, owners: `${base}owners`, orders: `${base}orders` };
}

/** KEYS: records, sequence, orders. ARGV: id, JSON, sequence, order id. 0 when the id is taken. */
const INSERT = `
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
local own = redis.call('HGET', KEYS[3], ARGV[4])
redis.call('HSET', KEYS[3], ARGV[4], own and (own .. ' ' .. ARGV[1]) or ARGV[1])
return 1
`;

/** KEYS: records. ARGV: id, the JSON read, the JSON to write. 1 when written, 0 when it changed meanwhile, -1 when gone. */
const COMPARE_AND_SET = `
local stored = redis.call('HGET', KEYS[1], ARGV[1])
if not stored then return -1 end
if stored ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1
`;

/** KEYS: records, attempts. ARGV: delivery id, attempt JSON. Kept only while the delivery is. */
const ADD_ATTEMPT = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[2])
return 1
`;

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += READ_CHUNK) out.push(items.slice(i, i + READ_CHUNK));
  return out;
}

/**
 * A DeliveryStore on an ioredis client the caller connected (and quits).
 *
 * @example
 * const deliveries = createRedisDeliveryStore(new Redis("redis://127.0.0.1:6379/0"));
 * await deliveries.list({ customerId: "demo", state: "failed" });
 */
export function createRedisDeliveryStore(redis: RedisClient, options: RedisDeliveryStoreOptions = {}): DeliveryStore {
  const prefix = options.prefix ?? "ah:";
  const shared = sharedDeliveryKeys(prefix);
  const keysOf = (customerId: string) => customerDeliveryKeys(prefix, customerId);
  const scripts = {
    insert: luaScript(redis, INSERT, 3),
    compareAndSet: luaScript(redis, COMPARE_AND_SET, 1),
    addAttempt: luaScript(redis, ADD_ATTEMPT, 2),
  };

  /** The deliveries with these ids, in the order asked, skipping those gone. */
  async function read(ids: readonly string[]): Promise<Delivery[]> {
    const found: Delivery[] = [];
    for (const chunk of chunks(ids)) {
      if (chunk.length === 0) continue;
      const owners = await redis.hmget(shared.owners, ...chunk);
      // Sent together, not as one pipeline: on a cluster the owners' slots lie on several nodes.
      const replies = await Promise.all(
        chunk.map((id, i) => {
          const customerId = owners[i];
          return customerId === null || customerId === undefined ? null : redis.hget(keysOf(customerId).records, id);
        }),
      );
      for (const json of replies) if (typeof json === "string") found.push(JSON.parse(json) as Delivery);
    }
    return found;
  }

  /** One customer's deliveries with these ids, in the order asked. */
  async function readOwn(customerId: string, ids: readonly string[]): Promise<Delivery[]> {
    const found: Delivery[] = [];
    for (const chunk of chunks(ids)) {
      if (chunk.length === 0) continue;
      for (const json of await redis.hmget(keysOf(customerId).records, ...chunk)) {
        if (json !== null) found.push(JSON.parse(json) as Delivery);
      }
    }
    return found;
  }

  async function ofOrder(orderId: string): Promise<Delivery[]> {
    const customerId = await redis.hget(shared.orders, orderId);
    if (customerId === null) return [];
    const ids = await redis.hget(keysOf(customerId).orders, orderId);
    return ids === null ? [] : readOwn(customerId, ids.split(" "));
  }

  /** Forgets deliveries of one customer, their attempts and their orders' entries, then the indexes. */
  async function forget(customerId: string, ids: readonly string[], orderIds: readonly string[]): Promise<void> {
    const keys = keysOf(customerId);
    for (const chunk of chunks(ids)) {
      if (chunk.length === 0) continue;
      await redis
        .multi()
        .hdel(keys.records, ...chunk)
        .zrem(keys.sequence, ...chunk)
        .unlink(...chunk.map((id) => keys.attempts(id)))
        .exec();
      await redis
        .multi()
        .zrem(shared.all, ...chunk)
        .hdel(shared.owners, ...chunk)
        .exec();
    }
    for (const chunk of chunks(orderIds)) {
      if (chunk.length === 0) continue;
      await redis.hdel(keys.orders, ...chunk);
      await redis.hdel(shared.orders, ...chunk);
    }
  }

  return {
    async insert(delivery) {
      // The owner first: it claims the id across customers, as the memory store's one map does.
      // Each step can be repeated: a process killed part-way leaves what a second insert completes.
      const [[claimError], [ownerError, owner], [counterError, sequence]] = (await redis
        .multi()
        .hsetnx(shared.owners, delivery.id, delivery.customerId)
        .hget(shared.owners, delivery.id)
        .incr(shared.counter)
        .exec()) as [[Error | null], [Error | null, string], [Error | null, number]];
      if (claimError !== null || ownerError !== null || counterError !== null) {
        throw claimError ?? ownerError ?? counterError;
      }
      if (owner !== delivery.customerId) return false;
      const keys = keysOf(delivery.customerId);
      const json = JSON.stringify(delivery);
      const args = [delivery.id, json, sequence, delivery.orderId];
      const inserted = await scripts.insert(keys.records, keys.sequence, keys.orders, ...args);
      await redis
        .multi()
        .zadd(shared.all, "NX", sequence, delivery.id)
        .hset(shared.orders, delivery.orderId, delivery.customerId)
        .exec();
      return inserted === 1;
    },
    async get(id) {
      return (await read([id]))[0];
    },
    async update(id, change) {
      const customerId = await redis.hget(shared.owners, id);
      if (customerId === null) return undefined;
      const { records } = keysOf(customerId);
      for (let tries = 0; tries < MAX_UPDATE_TRIES; tries++) {
        const json = await redis.hget(records, id);
        if (json === null) return undefined;
        const next = change(JSON.parse(json) as Delivery);
        const written = await scripts.compareAndSet(records, id, json, JSON.stringify(next));
        if (written === 1) return JSON.parse(JSON.stringify(next)) as Delivery;
        if (written === -1) return undefined;
      }
      throw new Error(`delivery ${id}: no update won in ${MAX_UPDATE_TRIES} tries`);
    },
    async list(filter = {}) {
      let candidates: Delivery[];
      if (filter.orderId !== undefined) candidates = await ofOrder(filter.orderId);
      else if (filter.customerId !== undefined) {
        candidates = await readOwn(filter.customerId, await redis.zrange(keysOf(filter.customerId).sequence, 0, -1));
      } else candidates = await read(await redis.zrange(shared.all, 0, -1));
      return candidates.filter((delivery) => matches(delivery, filter));
    },
    async listPage(query) {
      const inWindow = (delivery: Delivery) =>
        (query.from === undefined || delivery.createdAt >= query.from) &&
        (query.to === undefined || delivery.createdAt <= query.to) &&
        matches(delivery, query);
      if (query.orderId !== undefined) {
        // An order has a handful of deliveries: one page holds them all.
        const own = (await ofOrder(query.orderId)).filter(inWindow);
        return { deliveries: query.cursor === undefined ? own.slice(0, query.limit) : [], nextCursor: null };
      }
      const source = query.customerId === undefined ? shared.all : keysOf(query.customerId).sequence;
      const load = (ids: readonly string[]) =>
        query.customerId === undefined ? read(ids) : readOwn(query.customerId, ids);
      const page = await readSequencePage(redis, source, query, load, (delivery) => {
        // Creation order is time order: nothing later was created before \`to\`.
        if (query.to !== undefined && delivery.createdAt > query.to) return "stop";
        return inWindow(delivery) ? "keep" : "skip";
      });
      return { deliveries: page.items, nextCursor: page.nextCursor };
    },
    async removeOrders(orderIds) {
      if (orderIds.length === 0) return;
      const owners = await redis.hmget(shared.orders, ...orderIds);
      const byCustomer = new Map<string, string[]>();
      orderIds.forEach((orderId, i) => {
        const customerId = owners[i];
        if (customerId === null || customerId === undefined) return;
        byCustomer.set(customerId, [...(byCustomer.get(customerId) ?? []), orderId]);
      });
      for (const [customerId, own] of byCustomer) {
        const lists = await redis.hmget(keysOf(customerId).orders, ...own);
        const ids = lists.flatMap((list) => (list === null ? [] : list.split(" ")));
        await forget(customerId, ids, own);
      }
    },
    async addAttempt(attempt) {
      const keys = keysOf(attempt.customerId);
      await scripts.addAttempt(
        keys.records,
        keys.attempts(attempt.deliveryId),
        attempt.deliveryId,
        JSON.stringify(attempt),
      );
    },
    async attempts(deliveryId) {
      const customerId = await redis.hget(shared.owners, deliveryId);
      if (customerId === null) return [];
      const list = await redis.lrange(keysOf(customerId).attempts(deliveryId), 0, -1);
      return list.map((json) => JSON.parse(json) as DeliveryAttempt);
    },
    async reset(customerId) {
      if (customerId !== undefined) {
        const keys = keysOf(customerId);
        const [ids, orderIds] = await Promise.all([redis.zrange(keys.sequence, 0, -1), redis.hkeys(keys.orders)]);
        await forget(customerId, ids, orderIds);
        return;
      }
      await unlinkMatching(redis, `${prefix}{*}:dlv:*`);
      await redis.unlink(shared.counter, shared.all, shared.owners, shared.orders);
    },
  };
}
