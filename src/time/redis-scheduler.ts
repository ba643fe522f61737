/**
 * A Scheduler on Redis for a real clock: jobs live in Redis, so any process
 * sharing it runs them, and each job runs once. A process claims due jobs
 * with a lease (one script: due jobs and jobs whose lease ran out move to the
 * leased set, leased until now + the lease time); when the handler is done
 * the job is removed. A process killed while holding a lease leaves the job
 * leased: once the lease runs out, a survivor claims it and runs it again.
 * Handlers must therefore tolerate a second run of a job whose first run
 * may have done part of its work (the lifecycle's steps do: they
 * compare-and-set on the order's version).
 *
 * A live process renews the leases of the jobs it is running (every third of
 * the lease), so a handler may take longer than the lease (a webhook attempt
 * waiting on a slow receiver) without another process running it too.
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { Job, JobHandler, Scheduler } from "../domain/ports.ts";

export interface RedisSchedulerOptions {
  /** Prefix of its keys (default `ah:`); its keys share the hash tag `{jobs}`. */
  readonly prefix?: string;
  /** How long a claimed job is held before another process may run it (default 10 s). */
  readonly leaseMs?: number;
  /** How often due jobs are looked for (default 25 ms). */
  readonly pollMs?: number;
  /** Jobs claimed per look (default 64). */
  readonly batch?: number;
  readonly now?: () => number;
  /** A handler that threw, or Redis unreachable while polling. */
  readonly onError?: (error: unknown, job?: Job) => void;
}

/**
 * KEYS: due, leased, data. ARGV: now, lease until, batch. Moves due jobs and
 * jobs whose lease ended to the leased set; returns their JSON.
 */
const CLAIM = `
local now = tonumber(ARGV[1])
local ids = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, tonumber(ARGV[3]))
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[3]))
for _, id in ipairs(due) do table.insert(ids, id) end
local claimed = {}
for _, id in ipairs(ids) do
  local data = redis.call('HGET', KEYS[3], id)
  redis.call('ZREM', KEYS[1], id)
  if data then
    redis.call('ZADD', KEYS[2], ARGV[2], id)
    table.insert(claimed, data)
  else
    redis.call('ZREM', KEYS[2], id)
  end
end
return claimed
`;

/** KEYS: leased, data. ARGV: id, the JSON it was claimed with. Done: forgets it, unless scheduled again meanwhile. */
const COMPLETE = `
redis.call('ZREM', KEYS[1], ARGV[1])
if redis.call('HGET', KEYS[2], ARGV[1]) == ARGV[2] then redis.call('HDEL', KEYS[2], ARGV[1]) end
return 1
`;

/** KEYS: due, leased, data. ARGV: id, JSON, due at. Scheduling under a live id replaces that job. */
const SCHEDULE = `
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

export function createRedisScheduler(redis: Redis, options: RedisSchedulerOptions = {}): RedisScheduler {
  const prefix = options.prefix ?? "ah:";
  const keys = { due: `${prefix}{jobs}:due`, leased: `${prefix}{jobs}:leased`, data: `${prefix}{jobs}:data` };
  const leaseMs = options.leaseMs ?? 10_000;
  const pollMs = options.pollMs ?? 25;
  const batch = options.batch ?? 64;
  const now = options.now ?? (() => Date.now());
  const onError = options.onError ?? ((error: unknown) => console.error("scheduler:", error));
  const handlers = new Map<string, JobHandler>();
  const running = new Set<Promise<void>>();
  /** Ids of the jobs running here, whose leases are renewed. */
  const held = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let renewal: NodeJS.Timeout | undefined;
  let stopped = true;

  async function run(json: string): Promise<void> {
    const job = JSON.parse(json) as Job;
    held.add(job.id);
    try {
      const handler = handlers.get(job.type);
      if (handler === undefined) throw new Error(`no handler for job type ${job.type}`);
      await handler(job);
      await redis.eval(COMPLETE, 2, keys.leased, keys.data, job.id, json);
    } catch (error) {
      // Left leased: it runs again, here or elsewhere, once the lease ends.
      onError(error, job);
    } finally {
      held.delete(job.id);
    }
  }

  /** Pushes the lease end of every job still running here (XX: a job completed meanwhile is not leased again). */
  async function renewLeases(): Promise<void> {
    if (held.size === 0) return;
    const until = now() + leaseMs;
    try {
      await redis.zadd(keys.leased, "XX", ...[...held].flatMap((id) => [until, id]));
    } catch (error) {
      onError(error);
    }
  }

  const claim = async (at: number): Promise<string[]> =>
    (await redis.eval(CLAIM, 3, keys.due, keys.leased, keys.data, at, at + leaseMs, batch)) as string[];

  async function poll(): Promise<void> {
    timer = undefined;
    if (stopped) return;
    try {
      const claimed = await claim(now());
      for (const json of claimed) {
        const work = run(json);
        running.add(work);
        void work.finally(() => running.delete(work));
      }
      // A full batch: more may be due, look again at once.
      if (claimed.length === batch) {
        schedulePoll(0);
        return;
      }
    } catch (error) {
      onError(error);
    }
    schedulePoll(pollMs);
  }

  function schedulePoll(delay: number): void {
    if (stopped || timer !== undefined) return;
    timer = setTimeout(() => void poll(), delay);
    timer.unref?.();
  }

  return {
    handle(type, handler) {
      handlers.set(type, handler);
    },
    async schedule({ type, dueAt, payload, id }) {
      const jobId = id ?? `job_${randomUUID()}`;
      const job: Job = { id: jobId, type, dueAt, payload };
      await redis.eval(SCHEDULE, 3, keys.due, keys.leased, keys.data, jobId, JSON.stringify(job), dueAt);
      return jobId;
    },
    async cancel(jobId) {
      const [removed] = (await redis
        .multi()
        .zrem(keys.due, jobId)
        .zrem(keys.leased, jobId)
        .hdel(keys.data, jobId)
        .exec()) as [[Error | null, number], unknown, unknown];
      return removed[1] === 1;
    },
    async size() {
      return (await redis.zcard(keys.due)) + (await redis.zcard(keys.leased));
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
      const [due, leased] = (await redis
        .multi()
        .zrange(keys.due, 0, 0, "WITHSCORES")
        .zrange(keys.leased, 0, 0, "WITHSCORES")
        .exec()) as [[Error | null, string[]], [Error | null, string[]]];
      const scores = [due[1][1], leased[1][1]].filter((score) => score !== undefined).map(Number);
      return scores.length === 0 ? undefined : Math.min(...scores);
    },
    async runDue(at) {
      for (let claimed = await claim(at); claimed.length > 0; claimed = await claim(at)) {
        for (const json of claimed) await run(json);
      }
    },
    async stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      // Jobs still running keep their leases until they are done.
      while (running.size > 0) await Promise.allSettled([...running]);
      clearInterval(renewal);
      renewal = undefined;
    },
  };
}
