/**
 * The Redis adapters on a real six-node Redis Cluster: the store contract
 * and the delivery store contract, as on one redis-server, with every
 * customer's keys spread over three masters. A cross-slot command, script or
 * MULTI anywhere in them fails here with Redis's own `CROSSSLOT` (or the
 * development build's slot check), not on a user's cluster.
 */
import { describe, expect, it } from "vitest";
import { clusterSeeds, connectRedisStore } from "../../src/redis/connect-redis.ts";
import { keySlot } from "../../src/redis/key-slot.ts";
import { luaScript } from "../../src/redis/lua-script.ts";
import { createRedisDeliveryStore } from "../../src/redis/redis-delivery-store.ts";
import { createRedisStore } from "../../src/redis/redis-store.ts";
import { redisClusterSkipReason, useRedisCluster } from "../support/redis-cluster.ts";
import { delivery, describeDeliveryStoreContract } from "../webhooks/delivery-store-contract.ts";
import { describeStoreContract, order } from "./store-contract.ts";

const skip = redisClusterSkipReason();

describe("redis+cluster:// URLs", () => {
  it("name every seed node", () => {
    expect(clusterSeeds("redis+cluster://10.0.0.1:7000, redis.local:7001")).toEqual([
      { host: "10.0.0.1", port: 7000 },
      { host: "redis.local", port: 7001 },
    ]);
  });

  it.each(["redis+cluster://", "redis+cluster://host", "redis+cluster://host:0", "redis+cluster://a:1,,b:2"])(
    "refuse %s with a RangeError",
    (url) => {
      expect(() => clusterSeeds(url)).toThrow(RangeError);
    },
  );
});

describe.skipIf(skip !== undefined)(
  `the Redis adapters on Redis Cluster${skip === undefined ? "" : ` (skipped: ${skip})`}`,
  () => {
    const cluster = useRedisCluster();
    let prefixes = 0;

    describeStoreContract("redis cluster", () => createRedisStore(cluster.client(), { prefix: `t${++prefixes}:` }));
    describeDeliveryStoreContract("redis cluster", () =>
      createRedisDeliveryStore(cluster.client(), { prefix: `d${++prefixes}:` }),
    );

    it("computes each key's slot as the cluster does", async () => {
      const client = cluster.client();
      const keys = ["ah:{cus_1}:orders", "ah:{jobs}:due", "plain", "a{}b", "{}{x}", "é{ü}", "ah:{idx}:owners"];
      for (const key of keys) expect(keySlot(key)).toBe(Number(await client.cluster("KEYSLOT", key)));
    });

    it("refuses, before sending, a script whose keys span slots", () => {
      const script = luaScript(cluster.client(), "return redis.call('GET', KEYS[1])", 2);
      expect(() => script("ah:{a}:x", "ah:{b}:x")).toThrow(/several hash slots/);
    });

    it("places orders for customers on every master, through a redis+cluster:// URL", async () => {
      const connection = await connectRedisStore(cluster.cluster().url, { prefix: "url:" });
      try {
        const customers = Array.from({ length: 12 }, (_, i) => `c${i}`);
        for (const id of customers) {
          await connection.store.putCustomer({
            id,
            name: id,
            tokens: [`${id}-token`],
            apiKey: "k",
            wallets: [{ shortcode: null, balanceCents: 1_000, currency: "KES" }],
          });
        }
        const placed = await Promise.all(
          customers.map((id) => connection.store.placeOrder({ order: order(`o-${id}`, id, "r"), now: 0 })),
        );
        expect(placed.map((result) => result.kind)).toEqual(customers.map(() => "placed"));
        const page = await connection.store.listOrderPage({ limit: 50 });
        expect(page.orders.map((found) => found.id).sort()).toEqual(customers.map((id) => `o-${id}`).sort());
        const deliveries = createRedisDeliveryStore(connection.client, { prefix: "url:" });
        expect(await deliveries.insert(delivery("dlv_1", "c3"))).toBe(true);
        await connection.store.reset();
        expect(await connection.store.getCustomer("c3")).toBeUndefined();
      } finally {
        await connection.close();
      }
    });
  },
);
