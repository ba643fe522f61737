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
import { shardCountKey } from "./job-shards.ts";
import { luaScript } from "./lua-script.ts";
import type { RedisClient } from "./redis-client.ts";

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
