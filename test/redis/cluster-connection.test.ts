/**
 * The simulator's Redis Cluster client keeps the promises of its one-server
 * client, though ioredis's `Cluster` runs each node's connection with
 * settings of its own (no reconnecting, an offline queue) whatever
 * `redisOptions` asks, and sends again any command whose connection closed:
 *
 * - a command (or a `MULTI`) out on a node's connection when it is reset is
 *   failed, never sent again (Redis may have run it: only the answer was
 *   lost);
 * - a command that never left, its node's connection still opening, is sent
 *   once the connection is open, and runs once;
 * - with every node unreachable, the connections open but answering
 *   nothing, a request answers 503 `store_unavailable` once the 3 s command
 *   timeout is up, instead of hanging, and it is served again once the
 *   nodes are back.
 *
 * Every node sits behind a fault proxy of the tests, announced as the
 * node's address, so the client reaches the nodes only through them.
 */
import { type Cluster, Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectRedisStore } from "../../src/redis/connect-redis.ts";
import { keySlot } from "../../src/redis/key-slot.ts";
import type { RedisClient } from "../../src/redis/redis-client.ts";
import { createSimulator } from "../../src/simulator/create-simulator.ts";
import type { FaultProxy } from "../support/fault-proxy.ts";
import { bearer, send } from "../support/http.ts";
import {
  rangeServing,
  redisClusterSkipReason,
  startRedisCluster,
  type TestRedisCluster,
} from "../support/redis-cluster.ts";

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
    /** The node serving `key` now, and a plain client straight to it, past its proxy: what it holds. */
    const servingNode = async (key: string) => {
      const serving = rangeServing(await running().slotRanges(), keySlot(key)).masterPort;
      const node = running().nodes.find((candidate) => candidate.proxy?.port === serving);
      if (node?.proxy === undefined) throw new Error(`no node behind port ${serving}`);
      return { proxy: node.proxy, check: new Redis({ host: "127.0.0.1", port: node.port, maxRetriesPerRequest: 1 }) };
    };

    const cutOff: [string, (client: RedisClient, key: string) => Promise<unknown>][] = [
      ["an INCR", (client, key) => client.incr(key)],
      ["a MULTI", (client, key) => client.multi().incr(key).exec()],
    ];
    it.each(cutOff)(
      "fails %s out when its node's connection resets, and never sends it again",
      { timeout: 30_000 },
      async (name, command) => {
        const key = `no-resend-${name.replace(/\W/g, "")}:{cluster}`;
        const { proxy, check } = await servingNode(key);
        const connection = await connectRedisStore(running().url);
        try {
          // Both connected before the fault, so the check below is quick.
          await Promise.all([connection.client.get(key), check.get(key)]);
          proxy.latency(400);
          const counted = command(connection.client, key).then(
            () => "answered",
            () => "failed",
          );
          // The command reaches Redis after 400 ms; its answer would be back after 800 ms.
          await expect.poll(() => check.get(key), { interval: 10 }).toBe("1");
          proxy.resetAll();
          proxy.heal();
          expect(await counted).toBe("failed");
          // The client serves again (the node reconnected), and the command was not run a second time.
          await expect.poll(() => connection.client.get(key).catch(() => "unreachable"), { timeout: 10_000 }).toBe("1");
          await new Promise((resolve) => setTimeout(resolve, 500));
          expect(await check.get(key)).toBe("1");
        } finally {
          await connection.close();
          check.disconnect();
        }
      },
    );

    it("sends a command that never left once its node's connection is open, and it runs once", async () => {
      const keys = Array.from({ length: 30 }, (_, i) => `opening-${i}`);
      const connection = await connectRedisStore(running().url);
      const cluster = connection.client as Cluster;
      try {
        // Every master's connection closed cleanly (nothing out on it): the client finds each node again
        // from the slot map, and the commands below meet connections still opening.
        for (const node of cluster.nodes("master")) node.disconnect();
        const replies = await Promise.all(keys.map((key) => connection.client.incr(key)));
        expect(replies).toEqual(keys.map(() => 1));
        expect(await Promise.all(keys.map((key) => connection.client.get(key)))).toEqual(keys.map(() => "1"));
      } finally {
        await connection.close();
      }
    });

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
