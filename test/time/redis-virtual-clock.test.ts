/**
 * The virtual clock shared on Redis, against a real redis-server: two
 * processes' clocks (each a TimeKeeper and a Redis scheduler on its own
 * connections) read one time; an advance on either runs each shared job once,
 * in due order at its due time, jobs scheduled in the window included;
 * concurrent advances add up; a process's own jobs run where they are held.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Job } from "../../src/domain/ports.ts";
import { createRedisScheduler, type RedisScheduler } from "../../src/redis/redis-scheduler.ts";
import { openRedisVirtualClock, type RedisVirtualClock } from "../../src/redis/redis-virtual-clock.ts";
import { createTimeKeeper, type TimeKeeper } from "../../src/time/time-keeper.ts";
import { redisSkipReason, useRedis } from "../support/redis.ts";

const skip = redisSkipReason();
const START = Date.UTC(2030, 0, 1);
const HOUR = 3_600_000;

interface Process {
  readonly time: TimeKeeper;
  readonly jobs: RedisScheduler;
  readonly clock: RedisVirtualClock;
}

describe.skipIf(skip !== undefined)(
  `the shared virtual clock${skip === undefined ? "" : ` (skipped: ${skip})`}`,
  () => {
    const { client } = useRedis();
    let prefixes = 0;
    const opened: RedisVirtualClock[] = [];
    afterEach(async () => {
      for (const clock of opened.splice(0)) await clock.close();
    });

    /** Processes on one prefix, each with its own connections; `handle` registers the same handlers on each. */
    async function processes(count: number, handle: (process: Process) => void): Promise<Process[]> {
      const prefix = `c${++prefixes}:`;
      const made: Process[] = [];
      for (let i = 0; i < count; i++) {
        const connection = client();
        const clock = await openRedisVirtualClock(connection, { prefix, startAt: START });
        opened.push(clock);
        const time = createTimeKeeper({ mode: "virtual", startAt: clock.startAt });
        const jobs = createRedisScheduler(connection, { prefix });
        clock.attach(time, jobs);
        const process = { time, jobs, clock };
        handle(process);
        made.push(process);
      }
      return made;
    }

    it("an advance on one process moves the other's clock before it returns", async () => {
      const [one, two] = await processes(2, () => undefined);
      await one?.clock.advance(5_000);
      expect(two?.time.clock.now()).toBe(START + 5_000);
      expect(one?.time.clock.now()).toBe(START + 5_000);
      await two?.clock.advance(1_000);
      expect(one?.time.clock.now()).toBe(START + 6_000);
    });

    it("runs every job due in the window once, in due order, each at its due time, and what they schedule", async () => {
      const runs: { id: string; at: number; by: number }[] = [];
      let handled = 0;
      const made = await processes(2, (process) => {
        const by = handled++;
        process.jobs.handle("tick", async (job: Job) => {
          runs.push({ id: job.id, at: process.time.clock.now(), by });
          const left = job.payload as number;
          if (left > 0) await process.jobs.schedule({ type: "tick", dueAt: job.dueAt + 700, payload: left - 1 });
        });
      });
      const [one, two] = made as [Process, Process];
      await one.jobs.schedule({ id: "a", type: "tick", dueAt: START + 1_000, payload: 2 });
      await two.jobs.schedule({ id: "b", type: "tick", dueAt: START + 1_500, payload: 0 });
      await two.jobs.schedule({ id: "late", type: "tick", dueAt: START + 10_001, payload: 0 });
      await two.clock.advance(10_000);
      // a at 1000, its follow-ups at 1700 and 2400; b at 1500; late waits.
      expect(runs.map((run) => run.at - START)).toEqual([1_000, 1_500, 1_700, 2_400]);
      expect(new Set(runs.map((run) => run.id)).size).toBe(4);
      expect(runs.every((run) => run.by === 1)).toBe(true);
      expect(await one.jobs.size()).toBe(1);
      expect(one.time.clock.now()).toBe(START + 10_000);
    });

    it("two concurrent advances of 1 h on two processes move the clock by 2 h and run each job once", async () => {
      const runs = new Map<string, number>();
      const late: Job[] = [];
      const [one, two] = (await processes(2, (process) => {
        process.jobs.handle("count", async (job: Job) => {
          runs.set(job.id, (runs.get(job.id) ?? 0) + 1);
          // The time a job runs at is its due time, whichever process runs it.
          if (process.time.clock.now() !== job.dueAt) late.push(job);
        });
      })) as [Process, Process];
      for (let i = 0; i < 120; i++) {
        await (i % 2 === 0 ? one : two).jobs.schedule({ type: "count", dueAt: START + i * 60_000, payload: i });
      }
      await Promise.all([one.clock.advance(HOUR), two.clock.advance(HOUR)]);
      expect(one.time.clock.now()).toBe(START + 2 * HOUR);
      expect(two.time.clock.now()).toBe(START + 2 * HOUR);
      expect(runs.size).toBe(120);
      expect([...runs.values()].every((count) => count === 1)).toBe(true);
      expect(late).toEqual([]);
    });

    it("a job of a process's own scheduler runs in that process, before an advance on another one returns", async () => {
      const [one, two] = (await processes(2, () => undefined)) as [Process, Process];
      const ran: number[] = [];
      two.time.scheduler.handle("own", async () => {
        // Slow on purpose: the advance on the other process waits for it all the same.
        await new Promise((resolve) => setTimeout(resolve, 100));
        ran.push(two.time.clock.now());
      });
      await two.time.scheduler.schedule({ type: "own", dueAt: START + 300, payload: null });
      await one.clock.advance(1_000);
      expect(ran).toEqual([START + 300]);
      expect(two.time.clock.now()).toBe(START + 1_000);
    });

    it("a process opened later starts at the shared time", async () => {
      const prefix = `c${++prefixes}:`;
      const first = await openRedisVirtualClock(client(), { prefix, startAt: START });
      opened.push(first);
      first.attach(
        createTimeKeeper({ mode: "virtual", startAt: first.startAt }),
        createRedisScheduler(client(), { prefix }),
      );
      await first.advance(42_000);
      const later = await openRedisVirtualClock(client(), { prefix, startAt: 0 });
      opened.push(later);
      expect(later.startAt).toBe(START + 42_000);
    });

    it("refuses a negative advance", async () => {
      const [one] = await processes(1, () => undefined);
      await expect(one?.clock.advance(-1)).rejects.toThrow(RangeError);
    });
  },
);
