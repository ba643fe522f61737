/**
 * A command out on a connection that is reset: Redis may have run it and
 * only its answer was lost. The simulator's client must not send it again
 * after reconnecting, since a script run twice answers as if another process
 * had done the work (a delivery's insert then skips scheduling its first
 * attempt, and the webhook is never sent). The reset is made by the tests'
 * fault proxy while the answer is on its way back.
 */
import { describe, expect, it } from "vitest";
import { connectRedisStore } from "../../src/redis/connect-redis.ts";
import { startFaultProxy } from "../support/fault-proxy.ts";
import { redisSkipReason, useRedis } from "../support/redis.ts";

const skip = redisSkipReason();

describe.skipIf(skip !== undefined)(`a reset connection${skip === undefined ? "" : ` (skipped: ${skip})`}`, () => {
  const redis = useRedis();

  it("fails the command out, and never runs it twice", { timeout: 30_000 }, async () => {
    const proxy = await startFaultProxy(redis.server().port);
    const connection = await connectRedisStore(`redis://127.0.0.1:${proxy.port}/3`);
    try {
      proxy.latency(400);
      const counted = connection.client.incr("no-resend:count").then(
        () => "answered",
        () => "failed",
      );
      // The command reaches Redis after 400 ms; its answer would be back after 800 ms.
      const check = redis.client();
      await check.select(3);
      await expect.poll(() => check.get("no-resend:count"), { interval: 10 }).toBe("1");
      proxy.resetAll();
      proxy.heal();
      expect(await counted).toBe("failed");
      await expect.poll(() => connection.client.status, { timeout: 10_000 }).toBe("ready");
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await check.get("no-resend:count")).toBe("1");
    } finally {
      await connection.close();
      await proxy.close();
    }
  });
});
