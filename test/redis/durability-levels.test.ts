/**
 * `--redis-durability` as a setting, on real servers: `serve` refuses `aof`
 * on a Redis without an append-only file (exit 2, naming the setting), and
 * `replicated` acknowledges an order only once a replica holds it: with no
 * replica it answers 503 `store_not_replicated`, and a retry with the same
 * key neither places nor debits a second time; with a replica attached the
 * same order is answered 200.
 */
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { createRedisStore } from "../../src/redis/redis-store.ts";
import { createSimulator, type Simulator } from "../../src/simulator/create-simulator.ts";
import { bearer, send } from "../support/http.ts";
import { runCli } from "../support/processes.ts";
import { placeOrderOn, SHARED_TOKEN } from "../support/redis-simulators.ts";
import { redisSkipReason, startRedis, type TestRedis } from "../support/redis.ts";

const skip = redisSkipReason();

describe.skipIf(skip !== undefined)(`--redis-durability${skip === undefined ? "" : ` (skipped: ${skip})`}`, () => {
  const servers: TestRedis[] = [];
  const simulators: Simulator[] = [];
  afterEach(async () => {
    for (const sim of simulators.splice(0)) await sim.close();
    for (const server of servers.splice(0).reverse()) await server.stop();
  });
  const start = async (appendfsync?: "always") => {
    const server = await startRedis(appendfsync === undefined ? {} : { appendfsync });
    servers.push(server);
    return server;
  };
  const replicated = async (server: TestRedis) => {
    const sim = await createSimulator({
      clock: "virtual",
      demo: { token: SHARED_TOKEN, balance: 1_000 },
      scenarios: false,
      onError: () => undefined,
      store: server.url,
      redisDurability: "replicated",
    });
    simulators.push(sim);
    await sim.listen(0);
    return sim;
  };

  it("serve --redis-durability aof exits 2 on a Redis without appendonly, naming the setting", async () => {
    const server = await start();
    const serve = runCli(["serve", "--port", "0", "--store", server.url, "--redis-durability", "aof"]);
    const code = await serve.exited;
    expect(code).toBe(2);
    expect(serve.output()).toContain(`--redis-durability aof needs appendonly yes on Redis 127.0.0.1:${server.port}`);
  });

  it("refuses a durability level that is not one, and one without a Redis store", async () => {
    await expect(createSimulator({ redisDurability: "disk" as "aof" })).rejects.toThrow(/memory, aof, replicated/);
    await expect(createSimulator({ redisDurability: "aof" })).rejects.toThrow(/needs a Redis store/);
  });

  it("replicated with no replica answers 503 store_not_replicated, and a retry places nothing twice", async () => {
    const server = await start();
    const sim = await replicated(server);
    const first = await placeOrderOn(sim, "no-replica-1");
    expect(first.status).toBe(503);
    expect(first.body).toMatchObject({ code: "store_not_replicated" });
    const retry = await placeOrderOn(sim, "no-replica-1");
    expect(retry.status).toBe(503);
    expect(retry.body).toMatchObject({ code: "store_not_replicated" });

    // The master holds the order once, debited once: the retry found it by its key.
    const orders = await sim.store.listOrders({ customerId: "demo" });
    expect(orders.map((order) => order.reference)).toEqual(["no-replica-1"]);
    const customer = await sim.store.getCustomer("demo");
    expect(customer?.wallets[0]?.balanceCents).toBe(1_000 * 100 - 10 * 100);
  });

  it("replicated with a replica attached acknowledges the order, and the replica holds it", async () => {
    const master = await start();
    const replica = await start();
    const replicaClient = new Redis(replica.url);
    try {
      // Synced over the socket: a full resync on disk would leave an RDB file in the servers' directory.
      const masterClient = new Redis(master.url);
      await masterClient.config("SET", "repl-diskless-sync", "yes", "repl-diskless-sync-delay", "0");
      masterClient.disconnect();
      await replicaClient.config("SET", "repl-diskless-load", "on-empty-db");
      await replicaClient.replicaof("127.0.0.1", String(master.port));
      await expect
        .poll(async () => /master_link_status:up/.test(await replicaClient.info("replication")), { timeout: 10_000 })
        .toBe(true);
      const sim = await replicated(master);
      const placed = await placeOrderOn(sim, "with-replica-1");
      expect(placed.status).toBe(200);
      const id = (placed.body as { id: string }).id;
      // Read from the replica itself: the order was there before the answer.
      expect(await createRedisStore(replicaClient).getOrder(id, "demo")).toMatchObject({ id });
      const again = await send(sim.url, "/v1/airtime", {
        method: "POST",
        headers: { ...bearer(SHARED_TOKEN), "idempotency-key": "with-replica-1" },
        body: { account: "0712345678", amount: 10, currency: "KES", reference: "with-replica-1" },
      });
      expect(again.status).toBe(200);
      expect((again.body as { id: string }).id).toBe(id);
    } finally {
      replicaClient.disconnect();
    }
  });
});
