/**
 * The jobs one process holds of the shared scheduler (`redis-scheduler.ts`):
 * those it claimed ahead of their due time, each waiting here on a local
 * timer, and those running. It runs each at its due time, never before,
 * removes it from Redis once its handler is done, renews the leases of all
 * it holds, and hands the waiting ones back when the process stops.
 */
import type { Job, JobHandler } from "../domain/ports.ts";
import { byShard, type ShardKeys, shardOf } from "./job-shards.ts";
import type { RedisClient } from "./redis-client.ts";
import type { SchedulerScripts } from "./scheduler-scripts.ts";

/** What the held jobs share with the rest of the scheduler. */
export interface SchedulerContext {
  readonly redis: RedisClient;
  readonly shards: readonly ShardKeys[];
  readonly scripts: SchedulerScripts;
  readonly handlers: ReadonlyMap<string, JobHandler>;
  readonly leaseMs: number;
  readonly lookaheadMs: number;
  readonly now: () => number;
  readonly onError: (error: unknown, job?: Job) => void;
}

export interface HeldJobs {
  /** Runs a claimed job here and now, waiting for it; a job that threw stays leased. */
  run(job: Job, json: string): Promise<void>;
  /** Takes a claimed job: runs it at once when due, else at its due time on a local timer. */
  begin(json: string): void;
  /** Pushes the lease end of every job still held here. */
  renewLeases(): Promise<void>;
  /** Hands the jobs waiting here back to the shared schedule. */
  releaseWaiting(): Promise<void>;
  /** Resolves once no job runs here. */
  drain(): Promise<void>;
}

/** A job claimed ahead of its due time, waiting here for it. */
interface Waiting {
  readonly job: Job;
  readonly json: string;
  timer: NodeJS.Timeout;
}

export function shardKeysOf(shards: readonly ShardKeys[], jobId: string): ShardKeys {
  return shards[shardOf(jobId, shards.length)] as ShardKeys;
}

export function createHeldJobs(context: SchedulerContext): HeldJobs {
  const { shards, scripts, handlers, now, onError } = context;
  const running = new Set<Promise<void>>();
  /** Ids of the jobs held here, waiting or running, whose leases are renewed. */
  const held = new Set<string>();
  const waiting = new Set<Waiting>();

  async function run(job: Job, json: string): Promise<void> {
    held.add(job.id);
    try {
      const handler = handlers.get(job.type);
      if (handler === undefined) throw new Error(`no handler for job type ${job.type}`);
      await handler(job);
      const keys = shardKeysOf(shards, job.id);
      await scripts.complete(keys.leased, keys.data, job.id, json);
    } catch (error) {
      // Left leased: it runs again, here or elsewhere, once the lease ends.
      onError(error, job);
    } finally {
      held.delete(job.id);
    }
  }

  function runTracked(job: Job, json: string): void {
    const work = run(job, json);
    running.add(work);
    void work.finally(() => running.delete(work));
  }

  function wake(entry: Waiting): void {
    const early = entry.job.dueAt - now();
    // A timer may fire a millisecond before the clock reads its time: never run a job before it is due.
    if (early > 0) {
      entry.timer = setTimeout(() => wake(entry), early);
      entry.timer.unref?.();
      return;
    }
    waiting.delete(entry);
    runTracked(entry.job, entry.json);
  }

  return {
    run,
    begin(json) {
      const job = JSON.parse(json) as Job;
      held.add(job.id);
      const wait = job.dueAt - now();
      if (wait <= 0) return runTracked(job, json);
      const entry: Waiting = { job, json, timer: setTimeout(() => wake(entry), wait) };
      entry.timer.unref?.();
      waiting.add(entry);
    },
    renewLeases: () => renewLeases(context, held),
    async releaseWaiting() {
      const entries = [...waiting];
      waiting.clear();
      for (const { job, timer } of entries) {
        clearTimeout(timer);
        held.delete(job.id);
      }
      await releaseJobs(context, entries);
    },
    async drain() {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}

/** Pushes the lease end of every job held (XX: a job completed meanwhile is not leased again). */
async function renewLeases(context: SchedulerContext, held: ReadonlySet<string>): Promise<void> {
  if (held.size === 0) return;
  const { redis, shards, now, lookaheadMs, leaseMs, onError } = context;
  const until = now() + lookaheadMs + leaseMs;
  try {
    const groups = byShard(held, (id) => id, shards.length);
    await Promise.all(
      [...groups].map(([shard, ids]) =>
        redis.zadd((shards[shard] as ShardKeys).leased, "XX", ...ids.flatMap((id) => [until, id])),
      ),
    );
  } catch (error) {
    onError(error);
  }
}

/** Hands jobs claimed ahead and not started back to the due sets, each shard's in one script. */
async function releaseJobs(context: SchedulerContext, entries: readonly Waiting[]): Promise<void> {
  if (entries.length === 0) return;
  const { shards, scripts, onError } = context;
  try {
    const groups = byShard(entries, ({ job }) => job.id, shards.length);
    await Promise.all(
      [...groups].map(([shard, group]) => {
        const keys = shards[shard] as ShardKeys;
        const args = group.flatMap(({ job, json }) => [job.id, json, job.dueAt]);
        return scripts.release(keys.due, keys.leased, keys.data, ...args);
      }),
    );
  } catch (error) {
    // Still leased: another process runs them once their leases end.
    onError(error);
  }
}
