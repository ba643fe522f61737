/**
 * `--redis-durability replicated` on the six-node test cluster: every
 * master has a replica, so orders whose writes lie on several masters (the
 * customer's slot, the job's shard) are acknowledged, and the replicas of
 * the customer's master hold each one when its answer arrives.
 */
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { keySlot } from "../../src/redis/key-slot.ts";
import { createRedisStore } from "../../src/redis/redis-store.ts";
import { createSimulator } from "../../src/simulator/create-simulator.ts";
import { placeOrderOn, SHARED_TOKEN } from "../support/redis-simulators.ts";
import { redisClusterSkipReason, useRedisCluster } from "../support/redis-cluster.ts";

const skip = redisClusterSkipReason();

describe.skipIf(skip !== undefined)(
  `replicated durability on Redis Cluster${skip === undefined ? "" : ` (skipped: ${skip})`}`,
  () => {
    const { cluster } = useRedisCluster();

    it("acknowledges orders once a replica of their master holds them", async () => {
      const warnings: string[] = [];
      const warn = console.warn;
      console.warn = (message: string) => warnings.push(message);
      const sim = await createSimulator({
        clock: "virtual",
        demo: { token: SHARED_TOKEN, balance: 1_000 },
        scenarios: false,
        onError: () => undefined,
        store: cluster().url,
        redisDurability: "replicated",
      }).finally(() => {
        console.warn = warn;
      });
      try {
        await sim.listen(0);
        expect(warnings).toEqual([]);
        const replies = await Promise.all(
          Array.from({ length: 10 }, (_, index) => placeOrderOn(sim, `replicated-${index}`)),
        );
        expect(replies.map((reply) => reply.status)).toEqual(Array.from({ length: 10 }, () => 200));

        // The replica of the demo customer's master, read directly (READONLY): each order is there.
        const slot = keySlot("{demo}");
        const replicaPort = await replicaPortOf(
          cluster().nodes.map((node) => node.port),
          slot,
        );
        const replica = new Redis({ host: "127.0.0.1", port: replicaPort });
        try {
          await replica.readonly();
          const store = createRedisStore(replica);
          for (const reply of replies) {
            const { id } = reply.body as { id: string };
            expect(await store.getOrder(id, "demo")).toMatchObject({ id });
          }
        } finally {
          replica.disconnect();
        }
      } finally {
        await sim.close();
      }
    });
  },
);

/** The port of a replica whose master serves `slot`, asking each node what it is. */
async function replicaPortOf(ports: readonly number[], slot: number): Promise<number> {
  for (const port of ports) {
    const node = new Redis({ host: "127.0.0.1", port });
    try {
      const masterPort = Number(/^master_port:(\d+)/m.exec(await node.info("replication"))?.[1]);
      const serving = (await node.cluster("SLOTS")).find(([from, to]) => slot >= from && slot <= to);
      if (serving?.[2]?.[1] === masterPort) return port;
    } finally {
      node.disconnect();
    }
  }
  throw new Error(`no replica of slot ${slot}'s master`);
}
