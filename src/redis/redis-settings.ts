/**
 * The Redis adapters' settings, normalised once: every default of the
 * adapters in one table (the key prefix they share, the job queue's shards,
 * the shared scheduler's lease and looks, the shared virtual clock's waits,
 * the shared journal's length), and for each adapter one frozen settings
 * object built from its options, which the adapter reads as it is. The
 * simulator's backend seam passes only what its own settings name.
 */
import type { Job } from "../domain/ports.ts";
import { DEFAULT_JOURNAL_LIMIT } from "../http/journal.ts";
import { DEFAULT_JOB_SHARDS } from "./job-shards.ts";
import type { RedisClient } from "./redis-client.ts";

const REDIS_DEFAULTS = Object.freeze({
  /** Several simulators can share one database under different prefixes. */
  prefix: "ah:",
  shards: DEFAULT_JOB_SHARDS,
  journalLimit: DEFAULT_JOURNAL_LIMIT,
  leaseMs: 10_000,
  pollMs: 25,
  lookaheadMs: 50,
  batch: 64,
  ackTimeoutMs: 5_000,
  lockMs: 30_000,
});

/** The options of an adapter whose only setting is where its keys live. */
export interface RedisKeyOptions {
  /** Prefix of its keys (default `ah:`), as the Redis Store's. */
  readonly prefix?: string | undefined;
}

export interface RedisStoreOptions extends RedisKeyOptions {
  /**
   * Shards of the indexes across customers (default 16, the job queue's
   * count): every process on the database must use the same number.
   */
  readonly shards?: number | undefined;
}

export interface RedisSchedulerOptions extends RedisStoreOptions {
  /** How long a claimed job is held before another process may run it (default 10 s). */
  readonly leaseMs?: number;
  /** The longest wait between two looks for due jobs (default 25 ms). */
  readonly pollMs?: number;
  /**
   * How long before its due time a job may be claimed (default 50 ms); it
   * then waits here and runs at its due time. Longer than the poll interval,
   * so a job is claimed before it falls due.
   */
  readonly lookaheadMs?: number;
  /** Jobs claimed per look (default 64). */
  readonly batch?: number;
  readonly now?: () => number;
  /** A handler that threw, or Redis unreachable while polling. */
  readonly onError?: (error: unknown, job?: Job) => void;
}

export interface RedisVirtualClockOptions extends RedisKeyOptions {
  /** The time when Redis holds none yet (default: the real time). */
  readonly startAt?: number;
  /** How long an advance waits for every process to take the new time (default 5 s). */
  readonly ackTimeoutMs?: number;
  /** How long the advance lock lasts without being renewed: a dead holder frees it then (default 30 s). */
  readonly lockMs?: number;
  /** Redis failed while applying a published time. */
  readonly onError?: (error: unknown) => void;
}

export interface RedisJournalOptions extends RedisKeyOptions {
  /** Entries kept (the stream is trimmed to about this many; pages read only this many). */
  readonly limit?: number;
}

export function redisKeySettings(options: RedisKeyOptions): { readonly prefix: string } {
  return Object.freeze({ prefix: options.prefix ?? REDIS_DEFAULTS.prefix });
}

export function redisStoreSettings(options: RedisStoreOptions): { readonly prefix: string; readonly shards: number } {
  return Object.freeze({ ...redisKeySettings(options), shards: options.shards ?? REDIS_DEFAULTS.shards });
}

/**
 * @example
 * redisSchedulerSettings({ shards: 4 }).leaseMs; // 10_000
 */
export function redisSchedulerSettings(options: RedisSchedulerOptions) {
  return Object.freeze({
    ...redisStoreSettings(options),
    leaseMs: options.leaseMs ?? REDIS_DEFAULTS.leaseMs,
    pollMs: options.pollMs ?? REDIS_DEFAULTS.pollMs,
    lookaheadMs: options.lookaheadMs ?? REDIS_DEFAULTS.lookaheadMs,
    batch: options.batch ?? REDIS_DEFAULTS.batch,
    now: options.now ?? (() => Date.now()),
    onError: options.onError ?? ((error: unknown) => console.error("scheduler:", error)),
  });
}

/**
 * The virtual clock's settings, with the database the connection uses:
 * channels are server-wide, not per database, so the database number keeps
 * two simulated providers apart (a cluster has only database 0).
 */
export function redisVirtualClockSettings(redis: RedisClient, options: RedisVirtualClockOptions) {
  return Object.freeze({
    ...redisKeySettings(options),
    database: "db" in redis.options ? (redis.options.db ?? 0) : 0,
    startAt: options.startAt ?? Date.now(),
    ackTimeoutMs: options.ackTimeoutMs ?? REDIS_DEFAULTS.ackTimeoutMs,
    lockMs: options.lockMs ?? REDIS_DEFAULTS.lockMs,
    onError: options.onError ?? ((error: unknown) => console.error("virtual clock:", error)),
  });
}

export function redisJournalSettings(options: RedisJournalOptions): {
  readonly prefix: string;
  readonly limit: number;
} {
  return Object.freeze({ ...redisKeySettings(options), limit: options.limit ?? REDIS_DEFAULTS.journalLimit });
}
