/**
 * The simulator's Redis Cluster client, though ioredis's `Cluster` runs
 * each node's connection with settings of its own (no reconnecting, an
 * offline queue) whatever `redisOptions` asks: with every node unreachable,
 * the connections open but answering nothing, a request answers 503
 * `store_unavailable` once the 3 s command timeout is up, instead of
 * hanging, and it is served again once the nodes are back.
 *
 * Every node sits behind a fault proxy of the tests, announced as the
 * node's address, so the client reaches the nodes only through them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSimulator } from "../../src/simulator/create-simulator.ts";
import type { FaultProxy } from "../support/fault-proxy.ts";
import { bearer, send } from "../support/http.ts";
import { redisClusterSkipReason, startRedisCluster, type TestRedisCluster } from "../support/redis-cluster.ts";

const skip = redisClusterSkipReason();
const TOKEN = "cluster-connection-token-01";

describe.skipIf(skip !== undefined)(
  `the Redis Cluster connection${skip === undefined ? "" : ` (skipped: ${skip})`}`,
  () => {
    let cluster: TestRedisCluster | undefined;
    beforeAll(async () => {
      cluster = await startRedisCluster({ proxied: true });
    }, 60_000);
    afterAll(async () => {
      await cluster?.stop();
    });
    const running = () => cluster as TestRedisCluster;
    const proxies = () => running().nodes.map((node) => node.proxy as FaultProxy);

    it(
      "answers 503 store_unavailable while every node is cut off, and serves again after",
      { timeout: 60_000 },
      async () => {
        const sim = await createSimulator({
          store: running().url,
          clock: "real",
          scenarios: false,
          demo: { token: TOKEN },
          onError: () => undefined,
        });
        await sim.listen(0);
        const order = (reference: string) =>
          send(sim.url, "/v1/airtime", {
            method: "POST",
            headers: { ...bearer(TOKEN), "idempotency-key": reference },
            body: { account: "0712345678", amount: 10, currency: "KES", reference },
          });
        try {
          expect((await order("before")).status).toBe(200);
          for (const proxy of proxies()) proxy.blackhole();
          const cutOff = await order("cut-off");
          expect(cutOff.status).toBe(503);
          expect(cutOff.body).toMatchObject({ code: "store_unavailable" });
          for (const proxy of proxies()) proxy.heal();
          await expect.poll(async () => (await order("after")).status, { timeout: 20_000, interval: 250 }).toBe(200);
        } finally {
          for (const proxy of proxies()) proxy.heal();
          await sim.close();
        }
      },
    );
  },
);
