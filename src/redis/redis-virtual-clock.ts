/**
 * One virtual clock for every process sharing a Redis. The time lives in
 * Redis; each process keeps it in its own TimeKeeper (the domain's
 * `Clock.now()` stays synchronous), read at start and moved by what is
 * published on the clock's channel. An advance, on any process, holds a lock
 * (so advances run one after another), runs the jobs of the Redis schedule
 * due in the window, in due order and each once, with the shared time at
 * each one's due time, and ends at the window's end. Every time it sets is
 * published; the last one is acknowledged by every process subscribed
 * before the advance returns, so another process reads the new time as
 * soon as it does (unless it does not answer within `ackTimeoutMs`).
 *
 * Jobs of the process's own scheduler (job types not routed to Redis) run
 * in the process that holds them, as its clock passes their due time: on
 * the advancing process between the shared jobs, in time order; on the
 * others when the published time reaches them.
 */
import { randomUUID } from "node:crypto";
import { connectAndAwaitReady } from "./await-ready.ts";
import type { RedisClient } from "./redis-client.ts";
import { StoreUnavailableError } from "../domain/ports.ts";
import type { RedisScheduler } from "./redis-scheduler.ts";
import type { TimeKeeper } from "../time/time-keeper.ts";

export interface RedisVirtualClockOptions {
  /** Prefix of its keys (default `ah:`); its keys share the hash tag `{clock}`. */
  readonly prefix?: string;
  /** The time when Redis holds none yet (default: the real time). */
  readonly startAt?: number;
  /** How long an advance waits for every process to take the new time (default 5 s). */
  readonly ackTimeoutMs?: number;
  /** How long the advance lock lasts without being renewed: a dead holder frees it then (default 30 s). */
  readonly lockMs?: number;
  /** Redis failed while applying a published time. */
  readonly onError?: (error: unknown) => void;
}

export interface RedisVirtualClock {
  /** The shared time when the clock was opened: where the process's TimeKeeper starts. */
  readonly startAt: number;
  /** Starts following the shared time with the process's clock, and running the shared jobs in advances. */
  attach(local: TimeKeeper, shared: RedisScheduler): void;
  /** Moves the shared time by `ms`, running what falls due, on whichever process it is called. */
  advance(ms: number): Promise<void>;
  /** Stops listening (the time stays in Redis). */
  close(): Promise<void>;
}

interface TimeMessage {
  readonly id: string;
  readonly now: number;
  /** Whether the publisher waits for every process to answer. */
  readonly ack: boolean;
}

/** KEYS: now, lock. ARGV: lock token, time, lock ms, channel, message. Sets and publishes the time while the lock is held. */
const STEP = `
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return -1 end
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('SET', KEYS[1], ARGV[2])
return redis.call('PUBLISH', ARGV[4], ARGV[5])
`;

/** KEYS: lock. ARGV: token, lock ms. */
const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;

/** KEYS: lock. ARGV: token. */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/** Waits between two tries of a lock another advance holds. */
const LOCK_RETRY_MS = 5;

/**
 * Subscribes, then reads (or sets) the shared time, so no time published
 * meanwhile is missed.
 *
 * @example
 * const clock = await openRedisVirtualClock(redis, { startAt: 0 });
 * const time = createTimeKeeper({ mode: "virtual", startAt: clock.startAt });
 * clock.attach(time, redisScheduler);
 * await clock.advance(2_000); // every process sharing the Redis now reads 2000
 */
export async function openRedisVirtualClock(
  redis: RedisClient,
  options: RedisVirtualClockOptions = {},
): Promise<RedisVirtualClock> {
  const prefix = options.prefix ?? "ah:";
  const keys = { now: `${prefix}{clock}:now`, lock: `${prefix}{clock}:lock` };
  // Channels are server-wide, not per database: the database number keeps two simulated providers apart.
  // A cluster has only database 0.
  const database = "db" in redis.options ? (redis.options.db ?? 0) : 0;
  const channelBase = `${prefix}{clock}@${database}`;
  const channels = { time: `${channelBase}:now`, ack: `${channelBase}:ack` };
  const ackTimeoutMs = options.ackTimeoutMs ?? 5_000;
  const lockMs = options.lockMs ?? 30_000;
  const onError = options.onError ?? ((error: unknown) => console.error("virtual clock:", error));
  const waiters = new Map<string, { expected: number | undefined; received: number; done: () => void }>();
  let local: TimeKeeper | undefined;
  let shared: RedisScheduler | undefined;
  /** The latest time heard before `attach`. */
  let heard = Number.NEGATIVE_INFINITY;
  /** Published times are applied one after another, in the order they came. */
  let applying: Promise<void> = Promise.resolve();

  const subscriber = redis.duplicate();
  // The command client reports Redis going away; this one only reconnects and subscribes again.
  subscriber.on("error", () => undefined);
  await connectAndAwaitReady(subscriber);
  subscriber.on("message", (channel: string, text: string) => {
    if (channel === channels.ack) return acknowledged(text);
    const message = JSON.parse(text) as TimeMessage;
    applying = applying.then(async () => {
      try {
        await follow(message.now);
        if (message.ack) await redis.publish(channels.ack, message.id);
      } catch (error) {
        onError(error);
      }
    });
  });
  // Times published while the subscription was down are not replayed: read the time again.
  subscriber.on("ready", () => {
    void redis.get(keys.now).then(
      (stored) => (stored === null ? undefined : follow(Number(stored))),
      (error: unknown) => onError(error),
    );
  });
  await subscriber.subscribe(channels.time, channels.ack);
  await redis.set(keys.now, String(options.startAt ?? Date.now()), "NX");
  const startAt = Number(await redis.get(keys.now));

  async function follow(now: number): Promise<void> {
    if (local === undefined) heard = Math.max(heard, now);
    else await local.advanceTo(now);
  }

  function acknowledged(id: string): void {
    const waiter = waiters.get(id);
    if (waiter === undefined) return;
    waiter.received++;
    if (waiter.expected !== undefined && waiter.received >= waiter.expected) waiter.done();
  }

  async function acquireLock(): Promise<string> {
    const token = randomUUID();
    while ((await redis.set(keys.lock, token, "PX", lockMs, "NX")) === null) {
      await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
    }
    return token;
  }

  /** Sets and publishes the shared time; with `ack`, waits until every subscribed process has taken it. */
  async function step(token: string, now: number, ack: boolean): Promise<void> {
    const id = randomUUID();
    const message: TimeMessage = { id, now, ack };
    let answered: Promise<void> = Promise.resolve();
    let timeout: NodeJS.Timeout | undefined;
    if (ack) {
      answered = new Promise<void>((resolve) => {
        waiters.set(id, { expected: undefined, received: 0, done: resolve });
        timeout = setTimeout(resolve, ackTimeoutMs);
      });
    }
    try {
      const receivers = (await redis.eval(
        STEP,
        2,
        keys.now,
        keys.lock,
        token,
        now,
        lockMs,
        channels.time,
        JSON.stringify(message),
      )) as number;
      if (receivers < 0) throw new Error("the advance lock ran out while the advance was running");
      const waiter = waiters.get(id);
      if (waiter !== undefined) {
        waiter.expected = receivers;
        if (waiter.received >= receivers) waiter.done();
      }
      await answered;
    } finally {
      clearTimeout(timeout);
      waiters.delete(id);
    }
  }

  async function advanceShared(ms: number, time: TimeKeeper, jobs: RedisScheduler): Promise<void> {
    const token = await acquireLock();
    // Many jobs due at one instant can outlast the lock: it is renewed while the advance runs.
    const renewal = setInterval(() => {
      redis.eval(RENEW, 1, keys.lock, token, lockMs).catch(onError);
    }, lockMs / 3);
    renewal.unref();
    try {
      const stored = await redis.get(keys.now);
      // A reset removed the time with every other key: this process's time goes on.
      let now = stored === null ? time.clock.now() : Number(stored);
      await time.advanceTo(now);
      const target = now + ms;
      for (let next = await jobs.nextDueAt(); next !== undefined && next <= target; next = await jobs.nextDueAt()) {
        if (next > now) {
          now = next;
          await time.advanceTo(now);
          await step(token, now, false);
        }
        await jobs.runDue(now);
      }
      await time.advanceTo(target);
      await step(token, target, true);
    } finally {
      clearInterval(renewal);
      await redis.eval(RELEASE, 1, keys.lock, token).catch(onError);
    }
  }

  return {
    startAt,
    attach(keeper, scheduler) {
      local = keeper;
      shared = scheduler;
      if (heard > Number.NEGATIVE_INFINITY) applying = applying.then(() => follow(heard)).catch(onError);
    },
    async advance(ms) {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError("advance(ms) needs a finite ms >= 0");
      if (local === undefined || shared === undefined) throw new Error("the virtual clock is not attached yet");
      try {
        await advanceShared(ms, local, shared);
      } catch (error) {
        if (error instanceof RangeError) throw error;
        throw new StoreUnavailableError((error as Error).message ?? String(error), { cause: error });
      }
    },
    async close() {
      await subscriber.quit().catch(() => subscriber.disconnect());
    },
  };
}
