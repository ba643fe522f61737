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
import { byShard, DEFAULT_JOB_SHARDS, jobShards, type ShardKeys, shardOf } from "./job-shards.ts";
import { luaScript } from "./lua-script.ts";

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

/**
 * KEYS: due, leased, data. ARGV: now, claim due up to (the lookahead's end),
 * lease until, batch. Moves jobs due by the lookahead's end and jobs whose
 * lease ended by now to the leased set. Returns the earliest time a job
 * still waits for (its due time or lease end; '' when none), then the JSON
 * of each job claimed.
 */
const CLAIM = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[4]))
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[2], 'LIMIT', 0, tonumber(ARGV[4]))
for _, id in ipairs(due) do table.insert(ids, id) end
local claimed = {''}
for _, id in ipairs(ids) do
  local data = redis.call('HGET', KEYS[3], id)
  redis.call('ZREM', KEYS[1], id)
  if data then
    redis.call('ZADD', KEYS[2], ARGV[3], id)
    table.insert(claimed, data)
  else
    redis.call('ZREM', KEYS[2], id)
  end
end
local nextDue = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]
local nextLease = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')[2]
if nextDue and nextLease then
  claimed[1] = tonumber(nextDue) < tonumber(nextLease) and nextDue or nextLease
else
  claimed[1] = nextDue or nextLease or ''
end
return claimed
`;

/** KEYS: leased, data. ARGV: id, the JSON it was claimed with. Done: forgets it, unless scheduled again meanwhile. */
const COMPLETE = `
redis.call('ZREM', KEYS[1], ARGV[1])
if redis.call('HGET', KEYS[2], ARGV[1]) == ARGV[2] then redis.call('HDEL', KEYS[2], ARGV[1]) end
return 1
`;

/**
 * KEYS: due, leased, data. ARGV: (id, the JSON it was claimed with, due at)
 * for each job. Hands jobs claimed ahead back to the due set, unless one was
 * scheduled again (or cancelled) meanwhile.
 */
const RELEASE = `
for i = 1, #ARGV, 3 do
  local id = ARGV[i]
  if redis.call('ZSCORE', KEYS[2], id) and redis.call('HGET', KEYS[3], id) == ARGV[i + 1] then
    redis.call('ZREM', KEYS[2], id)
    redis.call('ZADD', KEYS[1], ARGV[i + 2], id)
  end
end
return 1
`;

/**
 * KEYS: due, leased, data. ARGV: id, JSON, due at, '1' if absent only.
 * Scheduling under a live id (waiting or leased) replaces that job, or with
 * the last argument leaves it. Returns 1 when scheduled.
 */
const SCHEDULE = `
if ARGV[4] == '1' and redis.call('HEXISTS', KEYS[3], ARGV[1]) == 1 then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
return 1
`;

export interface RedisScheduler extends Scheduler {
  /** Starts looking for due jobs (after the handlers are registered); a real clock's way of running them. */
  start(): void;
  /**
   * A shared virtual clock's way instead of `start`: the earliest time a job
   * waits for (its due time, or the end of its lease), undefined when none waits.
   */
  nextDueAt(): Promise<number | undefined>;
  /**
   * Claims every job due (or whose lease ended) at `at` and runs them here,
   * one after another in due order, until none is left; a job that threw
   * stays leased until `at` + the lease.
   */
  runDue(at: number): Promise<void>;
  /** Stops looking; jobs stay in Redis for the other processes. Resolves when the jobs running here are done. */
  stop(): Promise<void>;
}

/** A job claimed ahead of its due time, waiting here for it. */
interface Waiting {
  readonly job: Job;
  readonly json: string;
  timer: NodeJS.Timeout;
}

export function createRedisScheduler(redis: RedisClient, options: RedisSchedulerOptions = {}): RedisScheduler {
  const prefix = options.prefix ?? "ah:";
  const shards = jobShards(prefix, options.shards ?? DEFAULT_JOB_SHARDS);
  const keysOf = (jobId: string): ShardKeys => shards[shardOf(jobId, shards.length)] as ShardKeys;
  const leaseMs = options.leaseMs ?? 10_000;
  const pollMs = options.pollMs ?? 25;
  const lookaheadMs = options.lookaheadMs ?? 50;
  const batch = options.batch ?? 64;
  const now = options.now ?? (() => Date.now());
  const onError = options.onError ?? ((error: unknown) => console.error("scheduler:", error));
  const scripts = {
    claim: luaScript(redis, CLAIM, 3),
    complete: luaScript(redis, COMPLETE, 2),
    release: luaScript(redis, RELEASE, 3),
    schedule: luaScript(redis, SCHEDULE, 3),
  };
  const handlers = new Map<string, JobHandler>();
  const running = new Set<Promise<void>>();
  /** Ids of the jobs held here, waiting or running, whose leases are renewed. */
  const held = new Set<string>();
  const waiting = new Set<Waiting>();
  /** The look under way, which `stop` waits for. */
  let looking: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  /** When the look `timer` waits for will happen. */
  let pollAt = Number.POSITIVE_INFINITY;
  let renewal: NodeJS.Timeout | undefined;
  let stopped = true;

  async function run(job: Job, json: string): Promise<void> {
    held.add(job.id);
    try {
      const handler = handlers.get(job.type);
      if (handler === undefined) throw new Error(`no handler for job type ${job.type}`);
      await handler(job);
      const keys = keysOf(job.id);
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

  /** Runs a claimed job at its due time: at once when due, else on a local timer. */
  function begin(json: string): void {
    const job = JSON.parse(json) as Job;
    held.add(job.id);
    const wait = job.dueAt - now();
    if (wait <= 0) {
      runTracked(job, json);
      return;
    }
    const entry: Waiting = { job, json, timer: setTimeout(() => wake(entry), wait) };
    entry.timer.unref?.();
    waiting.add(entry);
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

  /** Pushes the lease end of every job still held here (XX: a job completed meanwhile is not leased again). */
  async function renewLeases(): Promise<void> {
    if (held.size === 0) return;
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

  /**
   * Claims what is due by `upTo` (and leases ended by `at`) from every
   * shard, the shards' scripts sent together: the earliest time a job still
   * waits for, the jobs in due order, and whether a shard gave a full batch.
   */
  async function claim(
    at: number,
    upTo: number,
  ): Promise<{ next: number | undefined; claimed: string[]; full: boolean }> {
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
    const full = replies.some((reply) => reply.length - 1 === batch);
    return { next: nexts.length === 0 ? undefined : Math.min(...nexts), claimed, full };
  }

  async function poll(): Promise<void> {
    timer = undefined;
    pollAt = Number.POSITIVE_INFINITY;
    if (stopped) return;
    let delay = pollMs;
    try {
      const at = now();
      const { next, claimed, full } = await claim(at, at + lookaheadMs);
      for (const json of claimed) begin(json);
      // A full batch: more may be due, look again at once. Else look when the next job may be claimed.
      if (full) delay = 0;
      else if (next !== undefined) delay = Math.min(pollMs, Math.max(0, next - lookaheadMs - now()));
    } catch (error) {
      onError(error);
    }
    schedulePoll(delay);
  }

  /** Looks for jobs in `delay` ms, or sooner if a look is already planned. */
  function schedulePoll(delay: number): void {
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

  /** Hands the jobs claimed ahead and not yet started back to the shared schedule. */
  async function releaseWaiting(): Promise<void> {
    if (waiting.size === 0) return;
    const entries = [...waiting];
    waiting.clear();
    for (const { job, timer: wait } of entries) {
      clearTimeout(wait);
      held.delete(job.id);
    }
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

  return {
    handle(type, handler) {
      handlers.set(type, handler);
    },
    async schedule({ type, dueAt, payload, id, ifAbsent }) {
      const jobId = id ?? `job_${randomUUID()}`;
      const job: Job = { id: jobId, type, dueAt, payload };
      const onlyIfAbsent = ifAbsent === true ? "1" : "0";
      const keys = keysOf(jobId);
      await scripts.schedule(keys.due, keys.leased, keys.data, jobId, JSON.stringify(job), dueAt, onlyIfAbsent);
      // A job due before the next look would claim it: look earlier.
      if (!stopped) schedulePoll(Math.min(pollMs, Math.max(0, dueAt - lookaheadMs - now())));
      return jobId;
    },
    async cancel(jobId) {
      const keys = keysOf(jobId);
      const [removed] = (await redis
        .multi()
        .zrem(keys.due, jobId)
        .zrem(keys.leased, jobId)
        .hdel(keys.data, jobId)
        .exec()) as [[Error | null, number], unknown, unknown];
      return removed[1] === 1;
    },
    async size() {
      const counts = await Promise.all(shards.flatMap((keys) => [redis.zcard(keys.due), redis.zcard(keys.leased)]));
      return counts.reduce((sum, count) => sum + count, 0);
    },
    track() {
      // A real clock never waits for work in flight.
    },
    start() {
      stopped = false;
      schedulePoll(0);
      renewal ??= setInterval(() => void renewLeases(), Math.max(1, Math.floor(leaseMs / 3)));
      renewal.unref?.();
    },
    async nextDueAt() {
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
    },
    async runDue(at) {
      for (let { claimed } = await claim(at, at); claimed.length > 0; { claimed } = await claim(at, at)) {
        for (const json of claimed) await run(JSON.parse(json) as Job, json);
      }
    },
    async stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      pollAt = Number.POSITIVE_INFINITY;
      // A look under way may still claim jobs: they are handed back (or run, when due) with the rest.
      await looking;
      await releaseWaiting();
      // Jobs still running keep their leases until they are done.
      while (running.size > 0) await Promise.allSettled([...running]);
      clearInterval(renewal);
      renewal = undefined;
    },
  };
}
