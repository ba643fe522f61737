/**
 * The shared scheduler's queue, split into shards: `{jobs:0}` … `{jobs:N-1}`,
 * each a hash tag of its own, so on Redis Cluster the shards spread over the
 * masters instead of every order's job landing on the one node that owns
 * `{jobs}`. A job's shard follows from its id alone (its hash slot modulo
 * N), so scheduling, completing, renewing and cancelling it each touch one
 * slot without looking anything up. Every process using the queue must
 * count the same N.
 */
import { keySlot } from "./key-slot.ts";
import type { RedisClient } from "./redis-client.ts";

export interface ShardKeys {
  /** Sorted set: waiting job ids by due time. */
  readonly due: string;
  /** Sorted set: claimed job ids by lease end. */
  readonly leased: string;
  /** Hash: job id → job JSON. */
  readonly data: string;
}

/** The default number of shards: a few per master on a cluster of up to five, and cheap on one Redis. */
export const DEFAULT_JOB_SHARDS = 16;

/**
 * @example
 * jobShards("ah:", 2)[1]; // { due: "ah:{jobs:1}:due", leased: "ah:{jobs:1}:leased", data: "ah:{jobs:1}:data" }
 */
export function jobShards(prefix: string, count: number): ShardKeys[] {
  if (!Number.isSafeInteger(count) || count < 1 || count > 1_024) {
    throw new RangeError(`job shards must be an integer from 1 to 1024, got ${count}`);
  }
  return Array.from({ length: count }, (_, index) => {
    const base = `${prefix}{jobs:${index}}:`;
    return { due: `${base}due`, leased: `${base}leased`, data: `${base}data` };
  });
}

/** The shard index of a job id among `count` shards. */
export function shardOf(jobId: string, count: number): number {
  return keySlot(jobId) % count;
}

/** Items grouped by their job's shard (only shards holding some). */
export function byShard<T>(items: Iterable<T>, idOf: (item: T) => string, count: number): Map<number, T[]> {
  const groups = new Map<number, T[]>();
  for (const item of items) {
    const shard = shardOf(idOf(item), count);
    const group = groups.get(shard);
    if (group === undefined) groups.set(shard, [item]);
    else group.push(item);
  }
  return groups;
}

/** The key recording the shard count of the queue under `prefix`: in shard 0, which every count has. */
export function shardCountKey(prefix: string): string {
  return `${prefix}{jobs:0}:shards`;
}

/**
 * Records `count` as the queue's shard count, or throws when the queue
 * already has another: instances counting different shards would each
 * claim from only the shards they know, and a job in a shard one of them
 * does not count would run only on the others, or never. The record is
 * written once (`SET NX`) and read back in the same command; a reset of the
 * database clears it with the queue.
 *
 * @example
 * await claimShardCount(redis, "ah:", 16); // ok, and an instance asking for 8 on it is refused
 */
export async function claimShardCount(redis: RedisClient, prefix: string, count: number): Promise<void> {
  jobShards(prefix, count);
  const recorded = (await redis.call("SET", shardCountKey(prefix), String(count), "NX", "GET")) as string | null;
  if (recorded === null || Number(recorded) === count) return;
  throw new RangeError(
    `redisJobShards ${count} differs from the ${recorded} shards the job queue on this Redis already has: ` +
      "every instance sharing a Redis must count the same shards",
  );
}
