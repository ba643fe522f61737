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
