/**
 * The Redis scheduler against a real redis-server: two processes' schedulers
 * on one Redis run each job once, a job whose holder failed (or died) is run
 * again once its lease has run out, and a job claimed ahead of its due time
 * runs at its due time, never before.
 */
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import type { Job } from "../../src/domain/ports.ts";
import { startProcess } from "../../src/harness/child-process.ts";
import { DEFAULT_JOB_SHARDS, jobShards, type ShardKeys, shardOf } from "../../src/redis/job-shards.ts";
import { createRedisScheduler } from "../../src/redis/redis-scheduler.ts";
import { redisSkipReason, useRedis } from "../support/redis.ts";

/** The keys of the shard that holds job `id`, as the scheduler's default sharding places it. */
const jobKeys = (prefix: string, id: string): ShardKeys =>
  jobShards(prefix, DEFAULT_JOB_SHARDS)[shardOf(id, DEFAULT_JOB_SHARDS)] as ShardKeys;

const SCHEDULER_MODULE = resolve(import.meta.dirname, "../../src/redis/redis-scheduler.ts");

const skip = redisSkipReason();

describe.skipIf(skip !== undefined)(`the Redis scheduler${skip === undefined ? "" : ` (skipped: ${skip})`}`, () => {
  const { client, server } = useRedis();
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

  it("looks again at once while due jobs are left behind a batch, not after its poll interval", async () => {
    const prefix = `s${++prefixes}:`;
    const runs: number[] = [];
    // A minute between looks: only looking again at once runs 40 jobs, 3 at a time, within the wait.
    const scheduler = createRedisScheduler(client(), { prefix, shards: 2, pollMs: 60_000, batch: 3 });
    scheduler.handle("count", async (job: Job) => {
      runs.push(job.payload as number);
    });
    for (let i = 0; i < 40; i++) await scheduler.schedule({ type: "count", dueAt: Date.now(), payload: i });
    scheduler.start();
    await expect.poll(() => runs.length, { timeout: 10_000 }).toBe(40);
    await scheduler.stop();
    expect(new Set(runs).size).toBe(40);
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

  it("leaves a live job alone when asked if absent, and takes a replaced job out of its lease", async () => {
    const prefix = `s${++prefixes}:`;
    let clock = Date.now();
    const scheduler = createRedisScheduler(client(), { prefix, pollMs: 5, lookaheadMs: 60_000, now: () => clock });
    const payloads: unknown[] = [];
    scheduler.handle("x", async (job: Job) => {
      payloads.push(job.payload);
    });
    const id = await scheduler.schedule({ type: "x", dueAt: clock + 1_000, payload: "first" });
    await scheduler.schedule({ id, type: "x", dueAt: clock + 500, payload: "ignored", ifAbsent: true });
    const keys = jobKeys(prefix, id);
    expect(await client().zscore(keys.due, id)).toBe(String(clock + 1_000));
    // Claimed ahead (leased here, waiting on its timer): still live, so left alone.
    scheduler.start();
    await expect.poll(() => client().zscore(keys.leased, id), { timeout: 5_000 }).not.toBeNull();
    await scheduler.schedule({ id, type: "x", dueAt: clock + 1_000, payload: "ignored too", ifAbsent: true });
    expect(await client().zscore(keys.due, id)).toBeNull();
    await scheduler.stop();
    // Replaced while leased: waiting again, no longer leased, and it runs with the new payload.
    await client().zadd(keys.leased, clock + 60_000, id);
    await scheduler.schedule({ id, type: "x", dueAt: clock, payload: "second" });
    expect(await client().zscore(keys.leased, id)).toBeNull();
    clock += 1_000;
    scheduler.start();
    await expect.poll(() => payloads, { timeout: 5_000 }).toEqual(["second"]);
    await expect.poll(() => scheduler.size(), { timeout: 5_000 }).toBe(0);
    await scheduler.stop();
  });

  it("claims ended leases and due jobs a batch at a time each, and every job once", async () => {
    const prefix = `s${++prefixes}:`;
    let clock = Date.now();
    const scheduler = createRedisScheduler(client(), { prefix, shards: 1, batch: 3, leaseMs: 1_000, now: () => clock });
    const ran: number[] = [];
    scheduler.handle("n", async (job: Job) => {
      ran.push(job.payload as number);
    });
    for (let i = 0; i < 7; i++) await scheduler.schedule({ type: "n", dueAt: clock + i, payload: i });
    const [keys] = jobShards(prefix, 1) as [ShardKeys];
    // Four jobs held by a process that died: leased, their leases ended.
    const ids = await client().zrange(keys.due, 0, 3);
    await client().zrem(keys.due, ...ids);
    await client().zadd(keys.leased, ...ids.flatMap((id) => [clock - 1, id]));
    clock += 10;
    await scheduler.runDue(clock);
    expect(ran.toSorted((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(await scheduler.size()).toBe(0);
    expect(await scheduler.nextDueAt()).toBeUndefined();
  });

  it("tells when the earliest job of a type is due, a leased one by its due time, not its lease's end", async () => {
    const prefix = `s${++prefixes}:`;
    const clock = Date.now();
    const scheduler = createRedisScheduler(client(), { prefix, shards: 1, now: () => clock, leaseMs: 60_000 });
    expect(await scheduler.nextDueAt("step")).toBeUndefined();
    // On one shard, more jobs of another type come first than one chunk of the scan reads.
    for (let i = 0; i < 450; i++) await scheduler.schedule({ type: "other", dueAt: clock + i, payload: null });
    await scheduler.schedule({ type: "step", dueAt: clock + 5_000, payload: null });
    const held = await scheduler.schedule({ type: "step", dueAt: clock + 3_000, payload: null });
    expect(await scheduler.nextDueAt("step")).toBe(clock + 3_000);
    // Claimed by a process: leased until its lease ends, still due at its own time.
    const [keys] = jobShards(prefix, 1) as [ShardKeys];
    await client().zrem(keys.due, held);
    await client().zadd(keys.leased, clock + 60_000, held);
    expect(await scheduler.nextDueAt("step")).toBe(clock + 3_000);
    expect(await scheduler.nextDueAt("other")).toBe(clock);
    expect(await scheduler.cancel(held)).toBe(false);
    expect(await scheduler.nextDueAt("step")).toBe(clock + 5_000);
    expect(await scheduler.nextDueAt("missing")).toBeUndefined();
  });

  it("runs a job claimed ahead of its due time only once its clock reaches it", async () => {
    const prefix = `s${++prefixes}:`;
    const start = Date.now();
    let clock = start;
    const ranAt: number[] = [];
    const scheduler = createRedisScheduler(client(), { prefix, pollMs: 5, lookaheadMs: 1_000, now: () => clock });
    scheduler.handle("timed", async () => {
      ranAt.push(clock);
    });
    const id = await scheduler.schedule({ type: "timed", dueAt: start + 100, payload: null });
    scheduler.start();
    // Claimed ahead: leased to this scheduler, waiting for its due time.
    await expect.poll(() => client().zscore(jobKeys(prefix, id).leased, id), { timeout: 5_000 }).not.toBeNull();
    // Its timer fires after 100 ms of real time, but the scheduler's clock still reads the start.
    await new Promise((resolveWait) => setTimeout(resolveWait, 300));
    expect(ranAt).toEqual([]);
    clock = start + 99;
    await new Promise((resolveWait) => setTimeout(resolveWait, 50));
    expect(ranAt).toEqual([]);
    clock = start + 100;
    await expect.poll(() => ranAt.length, { timeout: 5_000 }).toBe(1);
    expect(ranAt[0]).toBeGreaterThanOrEqual(start + 100);
    await expect.poll(() => scheduler.size(), { timeout: 5_000 }).toBe(0);
    await scheduler.stop();
  });

  it("hands a job claimed ahead back when it stops, and another scheduler runs it at its time", async () => {
    const prefix = `s${++prefixes}:`;
    const runs: string[] = [];
    const first = createRedisScheduler(client(), { prefix, pollMs: 5, lookaheadMs: 60_000 });
    const second = createRedisScheduler(client(), { prefix, pollMs: 5, lookaheadMs: 0 });
    first.handle("handed", async () => {
      runs.push("first");
    });
    second.handle("handed", async () => {
      runs.push("second");
    });
    const dueAt = Date.now() + 500;
    const id = await first.schedule({ type: "handed", dueAt, payload: null });
    first.start();
    await expect.poll(() => client().zscore(jobKeys(prefix, id).leased, id), { timeout: 5_000 }).not.toBeNull();
    await first.stop();
    expect(await client().zscore(jobKeys(prefix, id).due, id)).toBe(String(dueAt));
    second.start();
    await expect.poll(() => runs, { timeout: 5_000 }).toEqual(["second"]);
    await second.stop();
  });

  it("runs once, after its lease, a job claimed ahead by a process killed before its due time", async () => {
    const prefix = `s${++prefixes}:`;
    // A process that claims the job 3 s ahead, with a 300 ms lease, and says so if it ever runs it.
    const script = `
      const { Redis } = await import("ioredis");
      const { createRedisScheduler } = await import(${JSON.stringify(SCHEDULER_MODULE)});
      const scheduler = createRedisScheduler(new Redis(${JSON.stringify(server().url)}), {
        prefix: ${JSON.stringify(prefix)}, pollMs: 5, lookaheadMs: 3000, leaseMs: 300,
      });
      scheduler.handle("doomed", async () => console.log("the killed process ran it"));
      scheduler.start();
      console.log("started");
      setInterval(() => {}, 1000);
    `;
    const survivorRuns: number[] = [];
    const survivor = createRedisScheduler(client(), { prefix, pollMs: 5, leaseMs: 300 });
    survivor.handle("doomed", async () => {
      survivorRuns.push(Date.now());
    });
    const doomed = startProcess(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script]);
    // Due 2 s after the doomed process is up, however long a loaded machine took to start it.
    let dueAt: number;
    let id: string;
    try {
      expect((await doomed.waitFor(/started/, 30_000)).kind).toBe("matched");
      dueAt = Date.now() + 2_000;
      id = await survivor.schedule({ type: "doomed", dueAt, payload: null });
      await expect.poll(() => client().zscore(jobKeys(prefix, id).leased, id), { timeout: 5_000 }).not.toBeNull();
      doomed.child.kill("SIGKILL");
      await doomed.exited;
    } finally {
      await doomed.stop();
    }
    expect(doomed.output()).not.toContain("the killed process ran it");
    survivor.start();
    await expect.poll(() => survivorRuns.length, { timeout: 10_000 }).toBe(1);
    // At its due time or later: the killed process held it until its lease ran out.
    expect(survivorRuns[0]).toBeGreaterThanOrEqual(dueAt);
    await expect.poll(() => survivor.size(), { timeout: 5_000 }).toBe(0);
    await survivor.stop();
    expect(survivorRuns).toHaveLength(1);
  });
});
