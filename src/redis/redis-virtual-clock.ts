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
import { type RedisVirtualClockOptions, redisVirtualClockSettings } from "./redis-settings.ts";

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

/** An advance waiting for every subscribed process to acknowledge one published time. */
interface Waiter {
  /** How many processes received the time; unknown until the publish answers. */
  expected: number | undefined;
  received: number;
  done: () => void;
}

/**
 * What one process knows of the shared clock: where it lives in Redis, the
 * advances waiting for acknowledgements, and the process's own clock once
 * attached. The clock's work is done by plain functions over it rather than
 * by one closure, so following the time and advancing it read apart.
 */
interface SharedClock {
  readonly redis: RedisClient;
  readonly keys: { readonly now: string; readonly lock: string };
  readonly channels: { readonly time: string; readonly ack: string };
  readonly ackTimeoutMs: number;
  readonly lockMs: number;
  readonly onError: (error: unknown) => void;
  /** By message id. */
  readonly waiters: Map<string, Waiter>;
  local: TimeKeeper | undefined;
  shared: RedisScheduler | undefined;
  /** The latest time heard before `attach`. */
  heard: number;
  /** Published times are applied one after another, in the order they came. */
  applying: Promise<void>;
}

function sharedClockOf(redis: RedisClient, settings: ReturnType<typeof redisVirtualClockSettings>): SharedClock {
  const { prefix, database, ackTimeoutMs, lockMs, onError } = settings;
  const channelBase = `${prefix}{clock}@${database}`;
  return {
    redis,
    keys: { now: `${prefix}{clock}:now`, lock: `${prefix}{clock}:lock` },
    channels: { time: `${channelBase}:now`, ack: `${channelBase}:ack` },
    ackTimeoutMs,
    lockMs,
    onError,
    waiters: new Map(),
    local: undefined,
    shared: undefined,
    heard: Number.NEGATIVE_INFINITY,
    applying: Promise.resolve(),
  };
}

async function follow(clock: SharedClock, now: number): Promise<void> {
  if (clock.local === undefined) clock.heard = Math.max(clock.heard, now);
  else await clock.local.advanceTo(now);
}

function acknowledged(clock: SharedClock, id: string): void {
  const waiter = clock.waiters.get(id);
  if (waiter === undefined) return;
  waiter.received++;
  if (waiter.expected !== undefined && waiter.received >= waiter.expected) waiter.done();
}

/** Follows the times published on the clock's channel, and counts the acknowledgements of this process's own. */
function listen(clock: SharedClock, subscriber: RedisClient): void {
  const { redis, channels, onError } = clock;
  subscriber.on("message", (channel: string, text: string) => {
    if (channel === channels.ack) return acknowledged(clock, text);
    const message = JSON.parse(text) as TimeMessage;
    clock.applying = clock.applying.then(async () => {
      try {
        await follow(clock, message.now);
        if (message.ack) await redis.publish(channels.ack, message.id);
      } catch (error) {
        onError(error);
      }
    });
  });
  // Times published while the subscription was down are not replayed: read the time again.
  subscriber.on("ready", () => {
    void redis.get(clock.keys.now).then(
      (stored) => (stored === null ? undefined : follow(clock, Number(stored))),
      (error: unknown) => onError(error),
    );
  });
}

async function acquireLock(clock: SharedClock): Promise<string> {
  const token = randomUUID();
  while ((await clock.redis.set(clock.keys.lock, token, "PX", clock.lockMs, "NX")) === null) {
    await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
  }
  return token;
}

/** Sets and publishes the shared time; with `ack`, waits until every subscribed process has taken it. */
async function step(clock: SharedClock, token: string, now: number, ack: boolean): Promise<void> {
  const { waiters, keys } = clock;
  const id = randomUUID();
  const message: TimeMessage = { id, now, ack };
  let answered: Promise<void> = Promise.resolve();
  let timeout: NodeJS.Timeout | undefined;
  if (ack) {
    answered = new Promise<void>((resolve) => {
      waiters.set(id, { expected: undefined, received: 0, done: resolve });
      timeout = setTimeout(resolve, clock.ackTimeoutMs);
    });
  }
  try {
    const receivers = (await clock.redis.eval(
      STEP,
      2,
      keys.now,
      keys.lock,
      token,
      now,
      clock.lockMs,
      clock.channels.time,
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

async function advanceShared(clock: SharedClock, ms: number, time: TimeKeeper, jobs: RedisScheduler): Promise<void> {
  const { redis, keys, lockMs, onError } = clock;
  const token = await acquireLock(clock);
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
        await step(clock, token, now, false);
      }
      await jobs.runDue(now);
    }
    await time.advanceTo(target);
    await step(clock, token, target, true);
  } finally {
    clearInterval(renewal);
    await redis.eval(RELEASE, 1, keys.lock, token).catch(onError);
  }
}

async function advance(clock: SharedClock, ms: number): Promise<void> {
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError("advance(ms) needs a finite ms >= 0");
  if (clock.local === undefined || clock.shared === undefined) {
    throw new Error("the virtual clock is not attached yet");
  }
  try {
    await advanceShared(clock, ms, clock.local, clock.shared);
  } catch (error) {
    if (error instanceof RangeError) throw error;
    throw new StoreUnavailableError((error as Error).message ?? String(error), { cause: error });
  }
}

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
  const settings = redisVirtualClockSettings(redis, options);
  const clock = sharedClockOf(redis, settings);
  const subscriber = redis.duplicate();
  // The command client reports Redis going away; this one only reconnects and subscribes again.
  subscriber.on("error", () => undefined);
  await connectAndAwaitReady(subscriber);
  listen(clock, subscriber);
  await subscriber.subscribe(clock.channels.time, clock.channels.ack);
  await redis.set(clock.keys.now, String(settings.startAt), "NX");
  const startAt = Number(await redis.get(clock.keys.now));

  return {
    startAt,
    attach(keeper, scheduler) {
      clock.local = keeper;
      clock.shared = scheduler;
      if (clock.heard > Number.NEGATIVE_INFINITY) {
        clock.applying = clock.applying.then(() => follow(clock, clock.heard)).catch(clock.onError);
      }
    },
    advance: (ms) => advance(clock, ms),
    async close() {
      await subscriber.quit().catch(() => subscriber.disconnect());
    },
  };
}
