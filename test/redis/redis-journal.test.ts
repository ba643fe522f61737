/**
 * The Redis journal's ids on a real redis-server: each append is numbered
 * by one counter, and an append that finds the counter gone while the
 * stream still holds entries (a reset half done) is numbered past the
 * stream's last entry instead of being refused.
 */
import { describe, expect, it } from "vitest";
import type { JournalRecord } from "../../src/http/journal.ts";
import { createRedisJournal } from "../../src/redis/redis-journal.ts";
import { redisSkipReason, useRedis } from "../support/redis.ts";

const skip = redisSkipReason();

const record = (requestId: string): JournalRecord => ({
  requestId,
  at: 0,
  wallMs: 0,
  method: "POST",
  path: "/v1/airtime",
  status: 200,
  customerId: "c",
  fired: [],
  durationMs: 1,
});

describe.skipIf(skip !== undefined)(`the Redis journal${skip === undefined ? "" : ` (skipped: ${skip})`}`, () => {
  const { client } = useRedis();

  it("numbers entries in order, and past the stream's last when its counter is gone", async () => {
    const journal = createRedisJournal(client(), { prefix: "j1:" });
    const ids = async () => (await journal.page({ limit: 10 })).entries.map(({ id, requestId }) => [id, requestId]);
    for (const requestId of ["a", "b", "c"]) journal.record(record(requestId));
    await expect.poll(ids, { timeout: 5_000 }).toEqual([
      [1, "a"],
      [2, "b"],
      [3, "c"],
    ]);
    await client().del("j1:{journal}:sequence");
    journal.record(record("d"));
    journal.record(record("e"));
    await expect.poll(ids, { timeout: 5_000 }).toEqual([
      [1, "a"],
      [2, "b"],
      [3, "c"],
      [4, "d"],
      [5, "e"],
    ]);
    expect(await client().get("j1:{journal}:sequence")).toBe("5");
  });
});
