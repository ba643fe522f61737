/**
 * The time of a simulator on a Redis store, shared with every process on
 * it: with a real clock the lifecycle's steps are leased jobs in Redis; with
 * a virtual clock the time itself is in Redis too, and an advance on any
 * process moves every process's clock. On the memory store the time is the
 * process's own.
 */
import type { Redis } from "ioredis";
import { guardUnavailable } from "../redis/connect-redis.ts";
import { createRedisScheduler, type RedisScheduler } from "../redis/redis-scheduler.ts";
import { openRedisVirtualClock, type RedisVirtualClock } from "../redis/redis-virtual-clock.ts";
import type { TimeKeeper } from "../time/time-keeper.ts";

export interface SharedTime {
  /** The scheduler of the jobs any process may run; undefined on the memory store. */
  readonly scheduler: RedisScheduler | undefined;
  /** Where the process's virtual clock starts: the shared time, or the option. */
  readonly startAt: number | undefined;
  /** Follows the shared time with the process's clock (once the domain is built). */
  attach(time: TimeKeeper): void;
  /** Moves the virtual clock: every process's when it is shared, else this one's. */
  advance(time: TimeKeeper, ms: number): Promise<void>;
  /** Starts running shared jobs (a real clock polls for them). */
  start(): void;
  /** Stops running shared jobs and following the shared time; resolves when the jobs running here are done. */
  stop(): Promise<void>;
}

export async function openSharedTime(
  redis: Redis | undefined,
  mode: "real" | "virtual",
  startAt: number | undefined,
  onError: (error: unknown) => void,
): Promise<SharedTime> {
  // Guarded like the store: a job scheduled with an order while Redis is away answers 503, not 500.
  const scheduler =
    redis === undefined
      ? undefined
      : guardUnavailable(createRedisScheduler(redis, { onError: (error) => onError(error) }));
  const clock: RedisVirtualClock | undefined =
    redis === undefined || mode !== "virtual"
      ? undefined
      : await openRedisVirtualClock(redis, { ...(startAt === undefined ? {} : { startAt }), onError });
  return {
    scheduler,
    startAt: clock?.startAt ?? startAt,
    attach(time) {
      if (clock !== undefined && scheduler !== undefined) clock.attach(time, scheduler);
    },
    advance: (time, ms) => (clock === undefined ? time.advance(ms) : clock.advance(ms)),
    start() {
      // A virtual clock runs the shared jobs in its advances, never on a timer.
      if (clock === undefined) scheduler?.start();
    },
    async stop() {
      await scheduler?.stop();
      await clock?.close();
    },
  };
}
