/**
 * A job that puts itself off (schedules itself again under its own id, as a
 * webhook retry does while its delivery does not name it yet) can be
 * claimed by another process before the run that put it off has completed.
 * That completion must leave the new claim's lease alone: it used to remove
 * the job from the leased set whatever it found, so when the new claimant
 * was killed before running the job, the job was neither due nor leased and
 * no survivor ever ran it. Under a CPU hog the kill-instance webhook test
 * lost messages that way (each lost delivery named a job whose JSON was
 * stored, in no set).
 *
 * The interleaving is made by hand with three schedulers on one Redis:
 * `first` runs the job and puts it off, `doomed` claims it and dies holding
 * it (its connection cut, so it renews nothing), then `first` completes its
 * run; `survivor` must run the job once the doomed lease has run out.
 */
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import type { Job } from "../../src/domain/ports.ts";
import { DEFAULT_JOB_SHARDS, jobShards, type ShardKeys, shardOf } from "../../src/redis/job-shards.ts";
import { createRedisScheduler } from "../../src/redis/redis-scheduler.ts";
import { redisSkipReason, useRedis } from "../support/redis.ts";

const skip = redisSkipReason();
const PREFIX = "put-off:";
const JOB = "job-that-puts-itself-off";
const LEASE_MS = 1_000;

describe.skipIf(skip !== undefined)(
  `a job put off while it runs${skip === undefined ? "" : ` (skipped: ${skip})`}`,
  () => {
    const redis = useRedis();

    it("keeps the lease of the process that claimed it again, so a survivor runs it", async () => {
      const keys = jobShards(PREFIX, DEFAULT_JOB_SHARDS)[shardOf(JOB, DEFAULT_JOB_SHARDS)] as ShardKeys;
      const quiet = { onError: () => undefined };
      // Looks once when started, then not for a minute: it never claims the job put off.
      const first = createRedisScheduler(redis.client(), { prefix: PREFIX, leaseMs: LEASE_MS, pollMs: 60_000 });
      // Puts the job off as the dispatcher does, without waking `first`'s looks.
      const putter = createRedisScheduler(redis.client(), { prefix: PREFIX });
      let putOff!: () => void;
      const wasPutOff = new Promise<void>((resolve) => (putOff = resolve));
      let finishFirst!: () => void;
      const firstMayFinish = new Promise<void>((resolve) => (finishFirst = resolve));
      first.handle("t", async (job: Job) => {
        await putter.schedule({ id: job.id, type: "t", dueAt: Date.now() + 100, payload: "put off" });
        putOff();
        // Stalled before completing, as a loaded process is.
        await firstMayFinish;
      });
      await putter.schedule({ id: JOB, type: "t", dueAt: Date.now(), payload: "first" });
      first.start();
      await wasPutOff;

      const doomedClient = new Redis(redis.server().url, { maxRetriesPerRequest: 0 });
      // Cut off below, it keeps trying to reconnect: not a failure of the test.
      doomedClient.on("error", () => undefined);
      const doomed = createRedisScheduler(doomedClient, { prefix: PREFIX, leaseMs: LEASE_MS, ...quiet });
      let claimedByDoomed!: () => void;
      const doomedHolds = new Promise<void>((resolve) => (claimedByDoomed = resolve));
      doomed.handle("t", () => {
        claimedByDoomed();
        // Killed mid-job: never returns.
        return new Promise<void>(() => undefined);
      });
      doomed.start();
      await doomedHolds;

      finishFirst();
      await first.stop();
      try {
        expect(await redis.client().zscore(keys.leased, JOB)).not.toBeNull();
      } finally {
        doomedClient.disconnect();
      }

      const survivor = createRedisScheduler(redis.client(), { prefix: PREFIX, leaseMs: LEASE_MS, pollMs: 20 });
      const ran: unknown[] = [];
      survivor.handle("t", async (job: Job) => {
        ran.push(job.payload);
      });
      survivor.start();
      try {
        await expect.poll(() => ran, { timeout: 10_000 }).toEqual(["put off"]);
      } finally {
        await survivor.stop();
      }
    });
  },
);
