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
import { type LuaScript, luaScript } from "./lua-script.ts";
import { readSequencePage } from "./sequence-page.ts";
import { type RedisKeyOptions, redisKeySettings } from "./redis-settings.ts";
import { matchesDeliveryFilter as matches } from "../webhooks/delivery-filter.ts";
import type { Delivery, DeliveryAttempt, DeliveryFilter, DeliveryPageQuery, DeliveryStore } from "../webhooks/ports.ts";

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
 * The delivery log on one Redis: its client, its keys and its scripts. The
 * operations below are plain functions over it rather than one closure, so
 * each reads as one idea; the store only names them.
 */
interface DeliveryLog {
  readonly redis: RedisClient;
  readonly prefix: string;
  readonly shared: SharedDeliveryKeys;
  readonly scripts: { readonly insert: LuaScript; readonly compareAndSet: LuaScript; readonly addAttempt: LuaScript };
}

function openDeliveryLog(redis: RedisClient, prefix: string): DeliveryLog {
  const scripts = {
    insert: luaScript(redis, INSERT, 3),
    compareAndSet: luaScript(redis, COMPARE_AND_SET, 1),
    addAttempt: luaScript(redis, ADD_ATTEMPT, 2),
  };
  return { redis, prefix, shared: sharedDeliveryKeys(prefix), scripts };
}

const keysOf = (log: DeliveryLog, customerId: string) => customerDeliveryKeys(log.prefix, customerId);

/** The deliveries with these ids, in the order asked, skipping those gone. */
async function read(log: DeliveryLog, ids: readonly string[]): Promise<Delivery[]> {
  const { redis, shared } = log;
  const found: Delivery[] = [];
  for (const chunk of chunks(ids)) {
    if (chunk.length === 0) continue;
    const owners = await redis.hmget(shared.owners, ...chunk);
    // Sent together, not as one pipeline: on a cluster the owners' slots lie on several nodes.
    const replies = await Promise.all(
      chunk.map((id, i) => {
        const customerId = owners[i];
        return customerId === null || customerId === undefined ? null : redis.hget(keysOf(log, customerId).records, id);
      }),
    );
    for (const json of replies) if (typeof json === "string") found.push(JSON.parse(json) as Delivery);
  }
  return found;
}

/** One customer's deliveries with these ids, in the order asked. */
async function readOwn(log: DeliveryLog, customerId: string, ids: readonly string[]): Promise<Delivery[]> {
  const found: Delivery[] = [];
  for (const chunk of chunks(ids)) {
    if (chunk.length === 0) continue;
    for (const json of await log.redis.hmget(keysOf(log, customerId).records, ...chunk)) {
      if (json !== null) found.push(JSON.parse(json) as Delivery);
    }
  }
  return found;
}

async function ofOrder(log: DeliveryLog, orderId: string): Promise<Delivery[]> {
  const customerId = await log.redis.hget(log.shared.orders, orderId);
  if (customerId === null) return [];
  const ids = await log.redis.hget(keysOf(log, customerId).orders, orderId);
  return ids === null ? [] : readOwn(log, customerId, ids.split(" "));
}

/** Forgets deliveries of one customer, their attempts and their orders' entries, then the indexes. */
async function forget(
  log: DeliveryLog,
  customerId: string,
  ids: readonly string[],
  orderIds: readonly string[],
): Promise<void> {
  const { redis, shared } = log;
  const keys = keysOf(log, customerId);
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

async function insertDelivery(log: DeliveryLog, delivery: Delivery): Promise<boolean> {
  const { redis, shared } = log;
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
  const keys = keysOf(log, delivery.customerId);
  const json = JSON.stringify(delivery);
  const args = [delivery.id, json, sequence, delivery.orderId];
  const inserted = await log.scripts.insert(keys.records, keys.sequence, keys.orders, ...args);
  await redis
    .multi()
    .zadd(shared.all, "NX", sequence, delivery.id)
    .hset(shared.orders, delivery.orderId, delivery.customerId)
    .exec();
  return inserted === 1;
}

async function updateDelivery(
  log: DeliveryLog,
  id: string,
  change: (current: Delivery) => Delivery,
): Promise<Delivery | undefined> {
  const customerId = await log.redis.hget(log.shared.owners, id);
  if (customerId === null) return undefined;
  const { records } = keysOf(log, customerId);
  for (let tries = 0; tries < MAX_UPDATE_TRIES; tries++) {
    const json = await log.redis.hget(records, id);
    if (json === null) return undefined;
    const next = change(JSON.parse(json) as Delivery);
    const written = await log.scripts.compareAndSet(records, id, json, JSON.stringify(next));
    if (written === 1) return JSON.parse(JSON.stringify(next)) as Delivery;
    if (written === -1) return undefined;
  }
  throw new Error(`delivery ${id}: no update won in ${MAX_UPDATE_TRIES} tries`);
}

async function listDeliveries(log: DeliveryLog, filter: DeliveryFilter): Promise<Delivery[]> {
  let candidates: Delivery[];
  if (filter.orderId !== undefined) candidates = await ofOrder(log, filter.orderId);
  else if (filter.customerId !== undefined) {
    const ids = await log.redis.zrange(keysOf(log, filter.customerId).sequence, 0, -1);
    candidates = await readOwn(log, filter.customerId, ids);
  } else candidates = await read(log, await log.redis.zrange(log.shared.all, 0, -1));
  return candidates.filter((delivery) => matches(delivery, filter));
}

async function listDeliveryPage(log: DeliveryLog, query: DeliveryPageQuery) {
  const inWindow = (delivery: Delivery) =>
    (query.from === undefined || delivery.createdAt >= query.from) &&
    (query.to === undefined || delivery.createdAt <= query.to) &&
    matches(delivery, query);
  if (query.orderId !== undefined) {
    // An order has a handful of deliveries: one page holds them all.
    const own = (await ofOrder(log, query.orderId)).filter(inWindow);
    return { deliveries: query.cursor === undefined ? own.slice(0, query.limit) : [], nextCursor: null };
  }
  const source = query.customerId === undefined ? log.shared.all : keysOf(log, query.customerId).sequence;
  const load = (ids: readonly string[]) =>
    query.customerId === undefined ? read(log, ids) : readOwn(log, query.customerId, ids);
  const page = await readSequencePage(log.redis, source, query, load, (delivery) => {
    // Creation order is time order: nothing later was created before \`to\`.
    if (query.to !== undefined && delivery.createdAt > query.to) return "stop";
    return inWindow(delivery) ? "keep" : "skip";
  });
  return { deliveries: page.items, nextCursor: page.nextCursor };
}

async function removeOrderDeliveries(log: DeliveryLog, orderIds: readonly string[]): Promise<void> {
  if (orderIds.length === 0) return;
  const owners = await log.redis.hmget(log.shared.orders, ...orderIds);
  const byCustomer = new Map<string, string[]>();
  orderIds.forEach((orderId, i) => {
    const customerId = owners[i];
    if (customerId === null || customerId === undefined) return;
    byCustomer.set(customerId, [...(byCustomer.get(customerId) ?? []), orderId]);
  });
  for (const [customerId, own] of byCustomer) {
    const lists = await log.redis.hmget(keysOf(log, customerId).orders, ...own);
    const ids = lists.flatMap((list) => (list === null ? [] : list.split(" ")));
    await forget(log, customerId, ids, own);
  }
}

async function readAttempts(log: DeliveryLog, deliveryId: string): Promise<DeliveryAttempt[]> {
  const customerId = await log.redis.hget(log.shared.owners, deliveryId);
  if (customerId === null) return [];
  const list = await log.redis.lrange(keysOf(log, customerId).attempts(deliveryId), 0, -1);
  return list.map((json) => JSON.parse(json) as DeliveryAttempt);
}

async function resetDeliveries(log: DeliveryLog, customerId: string | undefined): Promise<void> {
  const { redis, shared } = log;
  if (customerId !== undefined) {
    const keys = keysOf(log, customerId);
    const [ids, orderIds] = await Promise.all([redis.zrange(keys.sequence, 0, -1), redis.hkeys(keys.orders)]);
    await forget(log, customerId, ids, orderIds);
    return;
  }
  await unlinkMatching(redis, `${log.prefix}{*}:dlv:*`);
  await redis.unlink(shared.counter, shared.all, shared.owners, shared.orders);
}

/**
 * A DeliveryStore on an ioredis client the caller connected (and quits).
 *
 * @example
 * const deliveries = createRedisDeliveryStore(new Redis("redis://127.0.0.1:6379/0"));
 * await deliveries.list({ customerId: "demo", state: "failed" });
 */
export function createRedisDeliveryStore(redis: RedisClient, options: RedisKeyOptions = {}): DeliveryStore {
  const log = openDeliveryLog(redis, redisKeySettings(options).prefix);
  return {
    insert: (delivery) => insertDelivery(log, delivery),
    get: async (id) => (await read(log, [id]))[0],
    update: (id, change) => updateDelivery(log, id, change),
    list: (filter = {}) => listDeliveries(log, filter),
    listPage: (query) => listDeliveryPage(log, query),
    removeOrders: (orderIds) => removeOrderDeliveries(log, orderIds),
    async addAttempt(attempt) {
      const keys = keysOf(log, attempt.customerId);
      await log.scripts.addAttempt(
        keys.records,
        keys.attempts(attempt.deliveryId),
        attempt.deliveryId,
        JSON.stringify(attempt),
      );
    },
    attempts: (deliveryId) => readAttempts(log, deliveryId),
    reset: (customerId) => resetDeliveries(log, customerId),
  };
}
