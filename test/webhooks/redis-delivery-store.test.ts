/**
 * The Redis delivery store against a real redis-server: the same contract
 * as the memory store, plus what only a shared store shows — two clients
 * (two simulator processes) updating one delivery, and each seeing what the
 * other stored.
 */
import { describe, expect, it } from "vitest";
import { createRedisDeliveryStore } from "../../src/redis/redis-delivery-store.ts";
import { redisSkipReason, useRedis } from "../support/redis.ts";
import { delivery, describeDeliveryStoreContract } from "./delivery-store-contract.ts";

const skip = redisSkipReason();

describe.skipIf(skip !== undefined)(
  `the Redis delivery store${skip === undefined ? "" : ` (skipped: ${skip})`}`,
  () => {
    const { client } = useRedis();
    let prefixes = 0;

    // A fresh prefix per test: each starts with an empty store on the shared server.
    describeDeliveryStoreContract("redis", () => createRedisDeliveryStore(client(), { prefix: `d${++prefixes}:` }));

    it("loses no update when two clients change one delivery at once", async () => {
      const prefix = `d${++prefixes}:`;
      const [one, two] = [
        createRedisDeliveryStore(client(), { prefix }),
        createRedisDeliveryStore(client(), { prefix }),
      ];
      await one.insert(delivery("1", "a"));
      await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          (i % 2 === 0 ? one : two).update("1", (d) => ({ ...d, attemptCount: d.attemptCount + 1 })),
        ),
      );
      expect((await two.get("1"))?.attemptCount).toBe(60);
      expect((await one.list({ customerId: "a" })).map((d) => d.id)).toEqual(["1"]);
    });

    it("keeps its keys under the prefix, a customer's under its hash tag", async () => {
      const prefix = `d${++prefixes}:`;
      const store = createRedisDeliveryStore(client(), { prefix });
      await store.insert(delivery("1", "cus_a"));
      const keys = (await client().keys(`${prefix}*`)).sort();
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) expect(key).toMatch(new RegExp(`^${prefix}\\{(cus_a|deliveries)\\}:`));
      await store.reset();
      expect(await client().keys(`${prefix}*`)).toEqual([]);
    });
  },
);
