/**
 * A Scheduler on Redis for a real clock: jobs live in Redis, so any process
 * sharing it runs them, and each job runs once. A process claims jobs with a
 * lease (one script: jobs due within a short lookahead and jobs whose lease
 * ran out move to the leased set, leased until the lookahead's end + the
 * lease time); when the handler is done the job is removed. A process killed
 * while holding a lease leaves the job leased: once the lease runs out, a
 * survivor claims it and runs it again. Handlers must therefore tolerate a
 * second run of a job whose first run may have done part of its work (the
 * lifecycle's steps do: they compare-and-set on the order's version).
 *
 * On time: a job claimed ahead of its due time waits here on a local timer
 * and runs at its due time, never before, so a job's lateness is the
 * process's own timer and handler delay, not the polling interval. The next
 * look is timed for the earliest job left to claim, at most a poll interval
 * away (jobs other processes schedule are found within it).
 *
 * A live process renews the leases of the jobs it holds, waiting or running
 * (every third of the lease), so a handler may take longer than the lease (a
 * webhook attempt waiting on a slow receiver) without another process
 * running it too.
 */
import { randomUUID } from "node:crypto";
import type { RedisClient } from "./redis-client.ts";
import type { Job, JobHandler, Scheduler } from "../domain/ports.ts";
import { DEFAULT_JOB_SHARDS, jobShards, type ShardKeys } from "./job-shards.ts";
import { createHeldJobs, type HeldJobs, type SchedulerContext, shardKeysOf } from "./scheduler-runs.ts";
import { schedulerScripts } from "./scheduler-scripts.ts";

export interface RedisSchedulerOptions {
  /** Prefix of its keys (default `ah:`); each shard's keys share the hash tag `{jobs:<shard>}`. */
  readonly prefix?: string;
  /** Shards the queue is split into (default 16); every process on the queue must use the same number. */
  readonly shards?: number;
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

export interface RedisScheduler extends Scheduler {
  /** Starts looking for due jobs (after the handlers are registered); a real clock's way of running them. */
  start(): void;
  /**
   * Claims every job due (or whose lease ended) at `at` and runs them here,
   * one after another in due order, until none is left; a job that threw
   * stays leased until `at` + the lease.
   */
  runDue(at: number): Promise<void>;
  /** Stops looking; jobs stay in Redis for the other processes. Resolves when the jobs running here are done. */
  stop(): Promise<void>;
}

interface Claimed {
  /**
   * The earliest time a job still waits for (due time or lease end), undefined when none. A shard
   * that stopped at its batch size gives the score of the first job it left, due already.
   */
  readonly next: number | undefined;
  /** The jobs' JSON, in due order. */
  readonly claimed: string[];
}

/**
 * Claims what is due by `upTo` (and leases ended by `at`) from every shard,
 * the shards' scripts sent together.
 */
async function claim(context: SchedulerContext, batch: number, at: number, upTo: number): Promise<Claimed> {
  const { shards, scripts, leaseMs } = context;
  const replies = (await Promise.all(
    shards.map((keys) => scripts.claim(keys.due, keys.leased, keys.data, at, upTo, upTo + leaseMs, batch)),
  )) as string[][];
  const nexts = replies
    .map(([next = ""]) => next)
    .filter((next) => next !== "")
    .map(Number);
  const claimed = replies.flatMap(([, ...jobs]) => jobs);
  const dueOf = (json: string) => (JSON.parse(json) as Job).dueAt;
  if (shards.length > 1) claimed.sort((a, b) => dueOf(a) - dueOf(b));
  return { next: nexts.length === 0 ? undefined : Math.min(...nexts), claimed };
}

interface Poller {
  start(): void;
  /** Looks in `delay` ms, or sooner if a look is already planned; nothing once stopped. */
  lookIn(delay: number): void;
  /** Stops looking; resolves once a look under way is done. */
  stop(): Promise<void>;
}

/** The looks for due jobs: each claims from every shard, and the next is timed for the earliest job left. */
function createPoller(context: SchedulerContext, jobs: HeldJobs, pollMs: number, batch: number): Poller {
  const { now, lookaheadMs, onError } = context;
  /** The look under way, which `stop` waits for. */
  let looking: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  /** When the look `timer` waits for will happen. */
  let pollAt = Number.POSITIVE_INFINITY;
  let stopped = true;

  async function poll(): Promise<void> {
    timer = undefined;
    pollAt = Number.POSITIVE_INFINITY;
    if (stopped) return;
    let delay = pollMs;
    try {
      const at = now();
      const { next, claimed } = await claim(context, batch, at, at + lookaheadMs);
      for (const json of claimed) jobs.begin(json);
      // Look when the next job may be claimed: at once when a shard left due jobs behind its batch.
      if (next !== undefined) delay = Math.min(pollMs, Math.max(0, next - lookaheadMs - now()));
    } catch (error) {
      onError(error);
    }
    lookIn(delay);
  }

  function lookIn(delay: number): void {
    if (stopped) return;
    const at = now() + delay;
    if (timer !== undefined) {
      if (pollAt <= at) return;
      clearTimeout(timer);
    }
    pollAt = at;
    timer = setTimeout(() => {
      looking = poll();
    }, delay);
    timer.unref?.();
  }

  return {
    start() {
      stopped = false;
      lookIn(0);
    },
    lookIn,
    async stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      pollAt = Number.POSITIVE_INFINITY;
      await looking;
    },
  };
}

export function createRedisScheduler(redis: RedisClient, options: RedisSchedulerOptions = {}): RedisScheduler {
  const shards = jobShards(options.prefix ?? "ah:", options.shards ?? DEFAULT_JOB_SHARDS);
  const handlers = new Map<string, JobHandler>();
  const context: SchedulerContext = {
    redis,
    shards,
    scripts: schedulerScripts(redis),
    handlers,
    leaseMs: options.leaseMs ?? 10_000,
    lookaheadMs: options.lookaheadMs ?? 50,
    now: options.now ?? (() => Date.now()),
    onError: options.onError ?? ((error: unknown) => console.error("scheduler:", error)),
  };
  const { leaseMs, lookaheadMs, now } = context;
  const pollMs = options.pollMs ?? 25;
  const batch = options.batch ?? 64;
  const jobs = createHeldJobs(context);
  const poller = createPoller(context, jobs, pollMs, batch);
  let renewal: NodeJS.Timeout | undefined;

  return {
    handle(type, handler) {
      handlers.set(type, handler);
    },
    async schedule({ type, dueAt, payload, id, ifAbsent }) {
      const jobId = id ?? `job_${randomUUID()}`;
      const job: Job = { id: jobId, type, dueAt, payload };
      const keys = shardKeysOf(shards, jobId);
      const onlyIfAbsent = ifAbsent === true ? "1" : "0";
      await context.scripts.schedule(keys.due, keys.leased, keys.data, jobId, JSON.stringify(job), dueAt, onlyIfAbsent);
      // A job due before the next look would claim it: look earlier.
      poller.lookIn(Math.min(pollMs, Math.max(0, dueAt - lookaheadMs - now())));
      return jobId;
    },
    cancel: (jobId) => cancelJob(redis, shardKeysOf(shards, jobId), jobId),
    async size() {
      const counts = await Promise.all(shards.flatMap((keys) => [redis.zcard(keys.due), redis.zcard(keys.leased)]));
      return counts.reduce((sum, count) => sum + count, 0);
    },
    track() {
      // A real clock never waits for work in flight.
    },
    start() {
      poller.start();
      renewal ??= setInterval(() => void jobs.renewLeases(), Math.max(1, Math.floor(leaseMs / 3)));
      renewal.unref?.();
    },
    // Without a type, a shared virtual clock's way instead of `start`: it runs what falls due up to then.
    nextDueAt: (type) => (type === undefined ? earliestWaiting(redis, shards) : earliestOfType(context, type)),
    async runDue(at) {
      for (let { claimed } = await claim(context, batch, at, at); claimed.length > 0;) {
        for (const json of claimed) await jobs.run(JSON.parse(json) as Job, json);
        ({ claimed } = await claim(context, batch, at, at));
      }
    },
    async stop() {
      // A look under way may still claim jobs: they are handed back (or run, when due) with the rest.
      await poller.stop();
      await jobs.releaseWaiting();
      // Jobs still running keep their leases until they are done.
      await jobs.drain();
      clearInterval(renewal);
      renewal = undefined;
    },
  };
}

/** Removes a job wherever it is; true when it was waiting. */
async function cancelJob(redis: RedisClient, keys: ShardKeys, jobId: string): Promise<boolean> {
  const [removed] = (await redis
    .multi()
    .zrem(keys.due, jobId)
    .zrem(keys.leased, jobId)
    .hdel(keys.data, jobId)
    .exec()) as [[Error | null, number], unknown, unknown];
  return removed[1] === 1;
}

/** The earliest due time or lease end over every shard, undefined when no job waits. */
async function earliestWaiting(redis: RedisClient, shards: readonly ShardKeys[]): Promise<number | undefined> {
  const firsts = await Promise.all(
    shards.flatMap((keys) => [
      redis.zrange(keys.due, 0, 0, "WITHSCORES"),
      redis.zrange(keys.leased, 0, 0, "WITHSCORES"),
    ]),
  );
  const scores = firsts
    .map(([, score]) => score)
    .filter((score) => score !== undefined)
    .map(Number);
  return scores.length === 0 ? undefined : Math.min(...scores);
}

/** When the earliest job of `type` not yet done is due, over every shard, undefined when none. */
async function earliestOfType({ shards, scripts }: SchedulerContext, type: string): Promise<number | undefined> {
  const replies = (await Promise.all(
    shards.map((keys) => scripts.nextDueOfType(keys.due, keys.leased, keys.data, type)),
  )) as string[];
  const times = replies.filter((reply) => reply !== "").map(Number);
  return times.length === 0 ? undefined : Math.min(...times);
}
