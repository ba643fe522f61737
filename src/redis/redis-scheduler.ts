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
 *
 * One component, read top to bottom: the scheduler and its looks (the
 * poller), the jobs this process holds, then the Lua scripts they run.
 */
import { randomUUID } from "node:crypto";
import type { RedisClient } from "./redis-client.ts";
import type { Job, JobHandler, Scheduler } from "../domain/ports.ts";
import { jobShards, type ShardKeys, byShard, shardOf } from "./job-shards.ts";
import { type LuaScript, luaScript } from "./lua-script.ts";
import { redisSchedulerSettings, type RedisSchedulerOptions } from "./redis-settings.ts";

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
  const settings = redisSchedulerSettings(options);
  const shards = jobShards(settings.prefix, settings.shards);
  const handlers = new Map<string, JobHandler>();
  const { leaseMs, lookaheadMs, now, onError, pollMs, batch } = settings;
  const context: SchedulerContext = {
    redis,
    shards,
    scripts: schedulerScripts(redis),
    handlers,
    leaseMs,
    lookaheadMs,
    now,
    onError,
  };
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

/** What the held jobs share with the rest of the scheduler. */
interface SchedulerContext {
  readonly redis: RedisClient;
  readonly shards: readonly ShardKeys[];
  readonly scripts: SchedulerScripts;
  readonly handlers: ReadonlyMap<string, JobHandler>;
  readonly leaseMs: number;
  readonly lookaheadMs: number;
  readonly now: () => number;
  readonly onError: (error: unknown, job?: Job) => void;
}

/**
 * The jobs one process holds of the shared scheduler: those it claimed
 * ahead of their due time, each waiting here on a local timer, and those
 * running. It runs each at its due time, never before, removes it from
 * Redis once its handler is done, renews the leases of all it holds, and
 * hands the waiting ones back when the process stops.
 */
interface HeldJobs {
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

function shardKeysOf(shards: readonly ShardKeys[], jobId: string): ShardKeys {
  return shards[shardOf(jobId, shards.length)] as ShardKeys;
}

function createHeldJobs(context: SchedulerContext): HeldJobs {
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

// The scheduler's Lua scripts. Each runs on one shard of the queue,
// `{jobs:K}`: its due set, its leased set and its jobs' JSON, so on Redis
// Cluster each is one slot's script.

/**
 * KEYS: due, leased, data. ARGV: now, claim due up to (the lookahead's end),
 * lease until, batch. Moves jobs due by the lookahead's end and jobs whose
 * lease ended by now to the leased set. Returns the earliest time a job
 * still waits for (its due time or lease end; '' when none), then the JSON
 * of each job claimed.
 *
 * Each set is read once, its first batch + 1 entries with their scores:
 * those in time are claimed, and the first one left is the set's next time,
 * so an idle shard costs two reads. The claimed jobs are read, unqueued and
 * leased with one command each, whatever their number.
 */
const CLAIM = `
local batch = tonumber(ARGV[4])
local function take(key, upTo)
  local found = redis.call('ZRANGE', key, 0, batch, 'WITHSCORES')
  local ids = {}
  for i = 1, #found, 2 do
    if #ids == batch or tonumber(found[i + 1]) > upTo then return ids, found[i + 1] end
    table.insert(ids, found[i])
  end
  return ids, nil
end
local ended, nextLease = take(KEYS[2], tonumber(ARGV[1]))
local due, nextDue = take(KEYS[1], tonumber(ARGV[2]))
local claimed = {''}
local ids = {}
for _, id in ipairs(ended) do table.insert(ids, id) end
for _, id in ipairs(due) do table.insert(ids, id) end
if #ids > 0 then
  local data = redis.call('HMGET', KEYS[3], unpack(ids))
  if #due > 0 then redis.call('ZREM', KEYS[1], unpack(due)) end
  local leases, gone = {}, {}
  for i, id in ipairs(ids) do
    if data[i] then
      table.insert(leases, ARGV[3])
      table.insert(leases, id)
      table.insert(claimed, data[i])
    else
      table.insert(gone, id)
    end
  end
  if #leases > 0 then
    redis.call('ZADD', KEYS[2], unpack(leases))
    if not nextLease or tonumber(ARGV[3]) < tonumber(nextLease) then nextLease = ARGV[3] end
  end
  if #gone > 0 then redis.call('ZREM', KEYS[2], unpack(gone)) end
end
if nextDue and nextLease then
  claimed[1] = tonumber(nextDue) < tonumber(nextLease) and nextDue or nextLease
else
  claimed[1] = nextDue or nextLease or ''
end
return claimed
`;

/**
 * KEYS: leased, data. ARGV: id, the JSON it was claimed with. Done: forgets
 * it, unless scheduled again meanwhile. A job scheduled again left the
 * leased set then, so a lease it has now is a later claim's (the job put
 * itself off and another process took it up): that lease is kept, or a
 * claimant killed before running it would leave the job neither due nor
 * leased, never run again.
 */
const COMPLETE = `
if redis.call('HGET', KEYS[2], ARGV[1]) == ARGV[2] then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
end
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
 * the last argument leaves it. Returns 1 when scheduled. A new id costs two
 * writes: only an id whose JSON was already there can be leased (a claim
 * leases only jobs with their JSON, and every removal takes both).
 */
const SCHEDULE = `
if ARGV[4] == '1' then
  if redis.call('HSETNX', KEYS[3], ARGV[1], ARGV[2]) == 0 then return 0 end
elseif redis.call('HSET', KEYS[3], ARGV[1], ARGV[2]) == 0 then
  redis.call('ZREM', KEYS[2], ARGV[1])
end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
return 1
`;

/**
 * KEYS: due, leased, data. ARGV: type. When the earliest job of the type not
 * yet done is due ('' when none): the first one in the due set, read in
 * chunks in due order, and any leased one (claimed ahead of its due time, or
 * running), whose due time is in its JSON since its score is the lease's end.
 */
const NEXT_DUE_OF_TYPE = `
local chunk = 200
local function earliest(key, stopAtFirst)
  local found = nil
  local start = 0
  while true do
    local ids = redis.call('ZRANGE', key, start, start + chunk - 1)
    if #ids == 0 then return found end
    local data = redis.call('HMGET', KEYS[3], unpack(ids))
    for i = 1, #ids do
      if data[i] then
        local job = cjson.decode(data[i])
        if job.type == ARGV[1] and (not found or job.dueAt < found) then
          found = job.dueAt
          if stopAtFirst then return found end
        end
      end
    end
    start = start + chunk
  end
end
local due = earliest(KEYS[1], true)
local leased = earliest(KEYS[2], false)
if due and leased then due = math.min(due, leased) else due = due or leased end
if not due then return '' end
return string.format('%.0f', due)
`;

interface SchedulerScripts {
  readonly claim: LuaScript;
  readonly complete: LuaScript;
  readonly release: LuaScript;
  readonly schedule: LuaScript;
  readonly nextDueOfType: LuaScript;
}

function schedulerScripts(redis: RedisClient): SchedulerScripts {
  return {
    claim: luaScript(redis, CLAIM, 3),
    complete: luaScript(redis, COMPLETE, 2),
    release: luaScript(redis, RELEASE, 3),
    schedule: luaScript(redis, SCHEDULE, 3),
    nextDueOfType: luaScript(redis, NEXT_DUE_OF_TYPE, 3),
  };
}
