/**
 * Where the Redis store keeps what. A customer's own records share the hash
 * tag `{customerId}`, so every atomic step (a debit, an order insert, a key
 * claim, an eviction) touches one hash slot and the layout works on Redis
 * Cluster. The indexes across customers written on every order or token
 * are split into shards (`order-index.ts`, `issued-tokens.ts`); the few
 * written only by admin changes and evictions share the tag `{idx}`. This
 * is layout 2, recorded in Redis (`KEY_LAYOUT`, below).
 */
import { shardCountKey } from "./job-shards.ts";
import { luaScript } from "./lua-script.ts";
import type { RedisClient } from "./redis-client.ts";
export interface CustomerKeys {
  /**
   * Hash: `record` → the customer as JSON (wallets without balances),
   * `b:<shortcode>` → balance in cents, `c:<shortcode>` → currency (`-`
   * names the default wallet). One hash, so the customer is read with one
   * HGETALL and a placement reads its wallet from the same key.
   */
  readonly customer: string;
  /**
   * Hash: the customer's orders with what points at them, one field each:
   * `o:<order id>` → the order as JSON (its version is its history's
   * length, read in Lua with `cjson`), `r:<reference>` → order id (an
   * evicted order's id while its record is kept), `k:<idempotency key>` →
   * the key's record JSON, and `n` → the customer's order counter (its
   * orders' creation sequence). One hash, so a placement reads the key, the
   * reference and the counter with one HMGET and writes them with one HSET.
   */
  readonly book: string;
  /** Sorted set: order id by creation sequence (the book's counter `n`, taken inside the placement's script). */
  readonly orderSequence: string;
  /** Hash: order id → what an evicted order left (JSON). */
  readonly evicted: string;
  /** Hash: order id → until when its evicted record is kept (simulator ms). */
  readonly evictedUntil: string;
  /** Sorted set: idempotency key by expiry, for the amortised sweep. */
  readonly idempotencyExpiry: string;
}

export interface SharedKeys {
  /** Set: every customer id. */
  readonly customers: string;
  /** Hash: SHA-256 hex of a static token → customer id. */
  readonly tokens: string;
  /** Sorted set: `customerId NUL orderId` of kept evicted records, by the time they end. */
  readonly evicted: string;
}

/** The wallet field suffix: the shortcode, or `-` for the default wallet (shortcodes are digits). */
export function walletField(shortcode: string | null): string {
  return shortcode ?? "-";
}

/** The field of the customer hash holding the customer's JSON. */
export const CUSTOMER_RECORD = "record";

/** The fields of a customer's book (`CustomerKeys.book`). */
export const bookField = {
  order: (id: string): string => `o:${id}`,
  reference: (reference: string): string => `r:${reference}`,
} as const;

export function customerKeys(prefix: string, customerId: string): CustomerKeys {
  const base = `${prefix}{${customerId}}:`;
  return {
    customer: `${base}customer`,
    book: `${base}book`,
    orderSequence: `${base}order-sequence`,
    evicted: `${base}evicted`,
    evictedUntil: `${base}evicted-until`,
    idempotencyExpiry: `${base}idempotency-expiry`,
  };
}

export function sharedKeys(prefix: string): SharedKeys {
  return {
    customers: `${prefix}{idx}:customers`,
    tokens: `${prefix}{idx}:tokens`,
    evicted: `${prefix}{idx}:evicted`,
  };
}

/**
 * The version of the Redis key layout this code reads and writes, recorded
 * in Redis so that processes on one database agree on it. Layout 1 kept an
 * order, its version, its reference and its idempotency key in four hashes,
 * and a customer's JSON in a string beside its wallets' hash; layout 2 keeps
 * the order's as fields of one hash per customer (its book), and the
 * customer's with its wallets in one hash, which layout 1 code would not
 * find: its compare-and-set would refuse every change and its placements
 * would miss every reference and key. A process
 * therefore refuses a Redis holding another layout, naming both, as it
 * refuses a job queue counting other shards.
 */

/** The layout this code reads and writes. */
export const KEY_LAYOUT = 2;

/**
 * KEYS: layout record, shard count record (both in `{jobs:0}`). ARGV: this
 * code's layout. Returns the layout the database holds, recording ours on
 * one that has none. A database without the record whose queue already
 * counts its shards was written by layout 1 code (which recorded the count
 * at every start, but no layout).
 */
const CLAIM_LAYOUT = `
local recorded = redis.call('GET', KEYS[1])
if recorded then return recorded end
if redis.call('EXISTS', KEYS[2]) == 1 then return '1' end
redis.call('SET', KEYS[1], ARGV[1])
return ARGV[1]
`;

/** The key recording the layout of the keys under `prefix`, beside the shard count. */
function layoutKey(prefix: string): string {
  return `${prefix}{jobs:0}:layout`;
}

/**
 * Records this code's layout on a database that has none, or throws when
 * the database holds another. A reset of the whole database clears the
 * record with everything else, and the next process records it again.
 *
 * @example
 * await claimKeyLayout(redis, "ah:"); // ok on an empty database, or one layout 2 code uses
 */
export async function claimKeyLayout(redis: RedisClient, prefix: string): Promise<void> {
  const claim = luaScript(redis, CLAIM_LAYOUT, 2);
  const recorded = String(await claim(layoutKey(prefix), shardCountKey(prefix), KEY_LAYOUT));
  if (recorded === String(KEY_LAYOUT)) return;
  throw new RangeError(
    `this Redis holds the simulator's keys in layout ${recorded}, and this version reads and writes ` +
      `layout ${KEY_LAYOUT}: reset the database (or use another) before starting it, once every ` +
      "instance of the other version has stopped",
  );
}
