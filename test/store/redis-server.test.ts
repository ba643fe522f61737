/**
 * The test Redis itself: the Redis tests rely on a server that starts empty
 * on its own port and can be stopped and restarted under a connected client.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisSkipReason, startRedis, type TestRedis } from "../support/redis.ts";

const skip = redisSkipReason();

describe.skipIf(skip !== undefined)(`the test redis-server${skip === undefined ? "" : ` (skipped: ${skip})`}`, () => {
  let redis: TestRedis;
  let client: Redis;

  beforeAll(async () => {
    redis = await startRedis();
    client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    // While the server is down the client reports refused connections: expected here.
    client.on("error", () => undefined);
  });
  afterAll(async () => {
    client.disconnect();
    await redis.stop();
  });

  it("answers on its own port, and comes back empty after a restart", async () => {
    await client.set("probe", "1");
    expect(await client.get("probe")).toBe("1");
    await redis.stop();
    await expect(client.get("probe")).rejects.toThrow();
    await redis.restart();
    await expect.poll(() => client.ping().catch(() => "down"), { timeout: 10_000 }).toBe("PONG");
    expect(await client.get("probe")).toBeNull();
  });
});
