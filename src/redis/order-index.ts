/**
 * The indexes of orders across customers: whose an order is (for a lookup
 * by id alone) and where it stands among all orders (the admin listing
 * across customers, the order cap's count). They are split into shards,
 * `{idx:0}` … `{idx:N-1}`, an order's shard being its id's hash slot modulo
 * N, so on Redis Cluster placing orders spreads over the masters instead of
 * writing one `{idx}` slot on every order.
 *
 * With no one counter across shards, an order's place among all orders is a
 * score this process draws: its creation time in milliseconds, with room
 * for 64 orders a millisecond (more move on into the next millisecond's
 * room), times 16 instance tags. Within one process scores only grow, so
 * its orders list in the order it placed them; across processes they list
 * by creation time. The tag (taken from a counter on `{idx}` once per
 * process) keeps two processes' scores apart, for up to 16 processes at a
 * time; a listing's cursor is one score.
 */
import { shardOf } from "./job-shards.ts";
import type { RedisClient } from "./redis-client.ts";
import { type PageVerdict, readSequencePage, type SequencePage, type SequencePageQuery } from "./sequence-page.ts";

/** Orders a millisecond one process can give distinct, increasing scores before it borrows the next. */
const PER_MS = 64;
/** Instance tags: the low part of every score. */
const TAGS = 16;

export interface IndexShardKeys {
  /** Hash: order id → customer id (orders and kept evicted records). */
  readonly owners: string;
  /** Sorted set: order id by its score among all orders. */
  readonly orders: string;
}

function indexShards(prefix: string, count: number): IndexShardKeys[] {
  return Array.from({ length: count }, (_, index) => ({
    owners: `${prefix}{idx:${index}}:owners`,
    orders: `${prefix}{idx:${index}}:orders`,
  }));
}

export interface OrderIndex {
  /**
   * Resolves once this process has its tag (the first time, one round trip):
   * after it, `add` sends its commands at once, in the caller's turn, so a
   * call sent right after it (the placement) reaches Redis after it.
   */
  ready(): Promise<void>;
  /** Indexes a new order; resolves to true when this call indexed it. */
  add(id: string, customerId: string, createdAt: number): Promise<boolean>;
  /** Takes an order out of both indexes (an order the store refused). */
  remove(id: string): Promise<void>;
  /** Takes an order out of the listing only (evicted, its record kept): its owner stays known. */
  unlist(id: string): Promise<void>;
  /** Forgets an order's owner (its evicted record is gone). */
  forgetOwner(id: string): Promise<void>;
  /** `[customerId, id]` of each id whose owner is known, in the ids' order. */
  ownersOf(ids: readonly string[]): Promise<(readonly [string, string])[]>;
  /** Every listed order id, oldest first. */
  allIds(): Promise<string[]>;
  count(): Promise<number>;
  page<T extends { readonly id: string }>(
    query: SequencePageQuery,
    load: (ids: readonly string[]) => Promise<readonly T[]>,
    verdict: (record: T) => PageVerdict,
  ): Promise<SequencePage<T>>;
  /** Takes one customer's orders and evicted records out of the indexes. */
  removeCustomer(orderIds: readonly string[], evictedIds: readonly string[]): Promise<void>;
}

/**
 * Scores that only grow, for orders created at the given times: the time's
 * room of 64, or the next free score when this process used it up.
 */
function scoreClock(): (createdAt: number, tag: number) => number {
  let last = 0;
  return (createdAt, tag) => {
    const base = Math.max(createdAt * PER_MS, last + 1);
    last = base;
    return base * TAGS + tag;
  };
}

/**
 * @example
 * const index = createOrderIndex(redis, "ah:", 16);
 * await index.add("ord_1", "cus_1", Date.now());
 */
export function createOrderIndex(redis: RedisClient, prefix: string, count: number): OrderIndex {
  const shards = indexShards(prefix, count);
  const shardFor = (id: string): IndexShardKeys => shards[shardOf(id, count)] as IndexShardKeys;
  const nextScore = scoreClock();
  let tag: number | undefined;
  let taking: Promise<void> | undefined;
  const ready = (): Promise<void> => {
    taking ??= redis.incr(`${prefix}{idx}:instances`).then((taken) => {
      tag = taken % TAGS;
    });
    return taking;
  };
  const byShard = <T>(items: readonly T[], idOf: (item: T) => string) => groupBy(items, (item) => shardFor(idOf(item)));

  return {
    ready,
    async add(id, customerId, createdAt) {
      if (tag === undefined) await ready();
      const keys = shardFor(id);
      // Two plain commands, sent together, rather than a script: NX on both leaves an id already indexed as it
      // is, and ids are drawn fresh for every placement, so no other order's entry is ever at stake.
      const [owned] = await Promise.all([
        redis.hsetnx(keys.owners, id, customerId),
        redis.zadd(keys.orders, "NX", nextScore(createdAt, tag as number), id),
      ]);
      return owned === 1;
    },
    async remove(id) {
      const keys = shardFor(id);
      await redis.multi().hdel(keys.owners, id).zrem(keys.orders, id).exec();
    },
    async unlist(id) {
      await redis.zrem(shardFor(id).orders, id);
    },
    async forgetOwner(id) {
      await redis.hdel(shardFor(id).owners, id);
    },
    async ownersOf(ids) {
      // One HMGET per shard holding some, sent together: on a cluster the shards lie on several nodes.
      const groups = [...byShard(ids, (id) => id)];
      const replies = await Promise.all(groups.map(([keys, group]) => redis.hmget(keys.owners, ...group)));
      const owners = new Map<string, string>();
      groups.forEach(([, group], g) =>
        group.forEach((id, i) => {
          const owner = replies[g]?.[i];
          if (owner !== null && owner !== undefined) owners.set(id, owner);
        }),
      );
      return ids.flatMap((id) => (owners.has(id) ? [[owners.get(id) as string, id] as const] : []));
    },
    async allIds() {
      const lists = await Promise.all(shards.map((keys) => redis.zrange(keys.orders, 0, -1, "WITHSCORES")));
      const scored = lists.flatMap((list) => pairs(list));
      return scored.sort((a, b) => a.score - b.score).map(({ id }) => id);
    },
    async count() {
      const counts = await Promise.all(shards.map((keys) => redis.zcard(keys.orders)));
      return counts.reduce((sum, one) => sum + one, 0);
    },
    page: (query, load, verdict) =>
      readSequencePage(
        redis,
        shards.map((keys) => keys.orders),
        query,
        load,
        verdict,
      ),
    async removeCustomer(orderIds, evictedIds) {
      const all = [...orderIds.map((id) => ({ id, listed: true })), ...evictedIds.map((id) => ({ id, listed: false }))];
      await Promise.all(
        [...byShard(all, ({ id }) => id)].map(([keys, group]) => {
          const batch = redis.multi().hdel(keys.owners, ...group.map(({ id }) => id));
          const listed = group.filter((entry) => entry.listed).map(({ id }) => id);
          if (listed.length > 0) batch.zrem(keys.orders, ...listed);
          return batch.exec();
        }),
      );
    },
  };
}

function groupBy<T, K>(items: readonly T[], keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [item]);
    else group.push(item);
  }
  return groups;
}

/** `[member, score, member, score, …]` as pairs. */
function pairs(list: readonly string[]): { id: string; score: number }[] {
  const found: { id: string; score: number }[] = [];
  for (let i = 0; i < list.length; i += 2) found.push({ id: list[i] as string, score: Number(list[i + 1]) });
  return found;
}
