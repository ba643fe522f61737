/**
 * The Redis scheduler against a real redis-server: two processes' schedulers
 * on one Redis run each job once, and a job whose holder failed (or died) is
 * run again once its lease has run out.
 */
import { describe, expect, it } from "vitest";
import type { Job } from "../../src/domain/ports.ts";
import { createRedisScheduler } from "../../src/time/redis-scheduler.ts";
import { redisSkipReason, useRedis } from "../support/redis.ts";

const skip = redisSkipReason();

describe.skipIf(skip !== undefined)(`the Redis scheduler${skip === undefined ? "" : ` (skipped: ${skip})`}`, () => {
  const { client } = useRedis();
  let prefixes = 0;

  it("runs each of 200 jobs exactly once across two schedulers", async () => {
    const prefix = `s${++prefixes}:`;
    const runs = new Map<string, number>();
    const schedulers = [0, 1].map(() => createRedisScheduler(client(), { prefix, pollMs: 5, batch: 8 }));
    for (const scheduler of schedulers) {
      scheduler.handle("count", async (job: Job) => {
        runs.set(job.id, (runs.get(job.id) ?? 0) + 1);
      });
    }
    for (let i = 0; i < 200; i++) await schedulers[i % 2]?.schedule({ type: "count", dueAt: Date.now(), payload: i });
    for (const scheduler of schedulers) scheduler.start();
    await expect.poll(() => runs.size, { timeout: 10_000 }).toBe(200);
    await expect.poll(async () => schedulers[0]?.size(), { timeout: 5_000 }).toBe(0);
    for (const scheduler of schedulers) await scheduler.stop();
    expect([...runs.values()].every((count) => count === 1)).toBe(true);
  });

  it("runs a job again once the lease of a holder that failed with it has run out", async () => {
    const prefix = `s${++prefixes}:`;
    const attempts: number[] = [];
    const errors: unknown[] = [];
    const holder = createRedisScheduler(client(), { prefix, pollMs: 5, leaseMs: 300, onError: (e) => errors.push(e) });
    holder.handle("flaky", async () => {
      attempts.push(Date.now());
      if (attempts.length === 1) throw new Error("the holder fails mid-job");
    });
    await holder.schedule({ type: "flaky", dueAt: Date.now(), payload: null });
    holder.start();
    await expect.poll(() => attempts.length, { timeout: 5_000 }).toBe(2);
    await holder.stop();
    expect(errors).toHaveLength(1);
    // Not before the lease ran out.
    expect((attempts[1] ?? 0) - (attempts[0] ?? 0)).toBeGreaterThanOrEqual(250);
    expect(await holder.size()).toBe(0);
  });

  it("keeps a job that runs longer than its lease from being run by a second scheduler", async () => {
    const prefix = `s${++prefixes}:`;
    const runs: string[] = [];
    const schedulers = ["one", "two"].map((name) => {
      const scheduler = createRedisScheduler(client(), { prefix, pollMs: 5, leaseMs: 150 });
      scheduler.handle("slow", async () => {
        runs.push(name);
        // Six leases long: without renewal the other scheduler would claim it meanwhile.
        await new Promise((resolve) => setTimeout(resolve, 900));
      });
      return scheduler;
    });
    await schedulers[0]?.schedule({ type: "slow", dueAt: Date.now(), payload: null });
    for (const scheduler of schedulers) scheduler.start();
    await expect.poll(() => runs.length, { timeout: 5_000 }).toBe(1);
    await expect.poll(async () => schedulers[0]?.size(), { timeout: 5_000 }).toBe(0);
    for (const scheduler of schedulers) await scheduler.stop();
    expect(runs).toHaveLength(1);
  });

  it("cancels a job, and replaces one scheduled again under its id", async () => {
    const prefix = `s${++prefixes}:`;
    const scheduler = createRedisScheduler(client(), { prefix });
    const id = await scheduler.schedule({ type: "x", dueAt: Date.now() + 60_000, payload: 1 });
    await scheduler.schedule({ id, type: "x", dueAt: Date.now() + 60_000, payload: 2 });
    expect(await scheduler.size()).toBe(1);
    expect(await scheduler.cancel(id)).toBe(true);
    expect(await scheduler.cancel(id)).toBe(false);
    expect(await scheduler.size()).toBe(0);
  });
});
