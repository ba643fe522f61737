/**
 * The test cluster itself: six real nodes, three masters with a replica
 * each, every slot served, and an ioredis `Cluster` client that follows
 * `MOVED` redirects to whichever master owns a key.
 */
import { describe, expect, it } from "vitest";
import { redisClusterSkipReason, useRedisCluster } from "../support/redis-cluster.ts";

const skip = redisClusterSkipReason();

describe.skipIf(skip !== undefined)(
  `a six-node Redis Cluster${skip === undefined ? "" : ` (skipped: ${skip})`}`,
  () => {
    const cluster = useRedisCluster();

    it("has three masters, each with one replica, serving all 16384 slots", async () => {
      expect(await cluster.cluster().masterPorts()).toHaveLength(3);
      const client = cluster.client();
      const slots = (await client.cluster("SLOTS")) as [number, number, ...unknown[]][];
      const served = slots.reduce((sum, [first, last]) => sum + last - first + 1, 0);
      expect(served).toBe(16_384);
      const nodes = String(await client.nodes("master")[0]?.cluster("NODES")).split("\n");
      const mastersOfReplicas = nodes.filter((line) => /\bslave\b/.test(line)).map((line) => line.split(" ")[3]);
      expect(new Set(mastersOfReplicas).size).toBe(3);
    });

    it("reaches keys on every master through one client", async () => {
      const client = cluster.client();
      const keys = Array.from({ length: 30 }, (_, i) => `probe:{customer-${i}}`);
      for (const [i, key] of keys.entries()) await client.set(key, String(i));
      const values = await Promise.all(keys.map((key) => client.get(key)));
      expect(values).toEqual(keys.map((_, i) => String(i)));
      const owners = new Set(
        await Promise.all(keys.map(async (key) => Number(await client.cluster("KEYSLOT", key)) % 3)),
      );
      expect(owners.size).toBeGreaterThan(1);
    });
  },
);
