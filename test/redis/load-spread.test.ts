/**
 * The load of many customers spreads over a real six-node Redis Cluster:
 * 100 customers place orders through a simulator's HTTP API on the
 * cluster, and every order goes final (its lifecycle's steps claimed from
 * the sharded job queue). Redis's own `INFO commandstats` on each master
 * counts what each ran; `MONITOR` on each counts the commands per hash slot.
 * Each master runs within ±20 % of the mean, and no slot takes more than
 * 10 % of the commands: no index, queue or counter shared by every order
 * sits on one node.
 */
import { Cluster } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_STATUS_TABLE, isFinalStatus } from "../../src/contract/status-codes.ts";
import { clusterSeeds } from "../../src/redis/connect-redis.ts";
import { jobShards } from "../../src/redis/job-shards.ts";
import { createSimulator } from "../../src/simulator/create-simulator.ts";
import { watchCommands, summarize } from "../support/command-census.ts";
import { bearer, send } from "../support/http.ts";
import { redisClusterSkipReason, startRedisCluster, type TestRedisCluster } from "../support/redis-cluster.ts";

const skip = redisClusterSkipReason();
const CUSTOMERS = 100;
const ORDERS_EACH = 5;
const tokenOf = (index: number) => `spread-token-${index}`;

describe.skipIf(skip !== undefined)(`load on Redis Cluster${skip === undefined ? "" : ` (skipped: ${skip})`}`, () => {
  let cluster: TestRedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster();
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it(
    "spreads 100 customers' orders over the three masters within ±20 %, no slot over 10 %",
    { timeout: 180_000 },
    async () => {
      const sim = await createSimulator({
        store: cluster.url,
        clock: "real",
        timing: "100ms",
        demo: false,
        scenarios: false,
        onError: () => undefined,
        customers: Array.from({ length: CUSTOMERS }, (_, i) => ({
          id: `shop-${i}`,
          token: tokenOf(i),
          balance: 100_000,
        })),
      });
      const watcher = new Cluster(clusterSeeds(cluster.url));
      try {
        await sim.listen(0);
        const census = await watchCommands(await cluster.masterPorts());
        const orders = Array.from({ length: CUSTOMERS * ORDERS_EACH }, (_, i) => i);
        // Ten at a time, the customers taking turns.
        for (let start = 0; start < orders.length; start += 10) {
          const replies = await Promise.all(
            orders.slice(start, start + 10).map((i) =>
              send(sim.url, "/v1/airtime", {
                method: "POST",
                headers: { ...bearer(tokenOf(i % CUSTOMERS)), "idempotency-key": `spread-${i}` },
                body: { account: "0712345678", amount: 10, currency: "KES", reference: `spread-${i}` },
              }),
            ),
          );
          expect(replies.map((reply) => reply.status)).toEqual(replies.map(() => 200));
        }
        // Every step done: the job queue's shards hold no job.
        const jobsLeft = async () => {
          const counts = await Promise.all(jobShards("ah:", 16).map((shard) => watcher.hlen(shard.data)));
          return counts.reduce((sum, one) => sum + one, 0);
        };
        await expect.poll(jobsLeft, { timeout: 60_000, interval: 250 }).toBe(0);
        const counted = await census.stop();

        const placed = await sim.store.listOrders();
        expect(placed).toHaveLength(CUSTOMERS * ORDERS_EACH);
        expect(placed.filter((order) => !isFinalStatus(DEFAULT_STATUS_TABLE, order.status))).toEqual([]);

        const summary = summarize(counted);
        console.log(
          `${CUSTOMERS * ORDERS_EACH} orders: ${summary.total} commands on the masters, ` +
            `${(summary.total / (CUSTOMERS * ORDERS_EACH)).toFixed(1)} per order; ` +
            `per master ${[...counted.perMaster.values()].join(", ")} ` +
            `(${summary.masterRatios.map((ratio) => `${((ratio - 1) * 100).toFixed(1)} %`).join(", ")} from the mean); ` +
            `busiest slots ${[...counted.perSlot]
              .sort((a, b) => b[1] - a[1])
              .slice(0, 3)
              .map(([slot, count]) => `${slot} (${count})`)
              .join(", ")}: the first ${(summary.topSlot.share * 100).toFixed(1)} % ` +
            `of ${[...counted.perSlot.values()].reduce((sum, one) => sum + one, 0)} keyed commands`,
        );
        expect(counted.perMaster.size).toBe(3);
        for (const ratio of summary.masterRatios) {
          expect(ratio).toBeGreaterThanOrEqual(0.8);
          expect(ratio).toBeLessThanOrEqual(1.2);
        }
        expect(summary.topSlot.share).toBeLessThanOrEqual(0.1);
      } finally {
        watcher.disconnect();
        await sim.close();
      }
    },
  );
});
