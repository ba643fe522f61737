/**
 * `redisJobShards`, the shared job queue's shard count, as a setting on a
 * real redis-server: a simulator told 4 puts its orders' steps in
 * `{jobs:0}` … `{jobs:3}` only, and runs them from there; a second instance
 * on the same database counting other shards is refused at start (as
 * `serve`, exit 2), naming both counts, while one counting the same shards
 * joins.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_STATUS_TABLE, isFinalStatus } from "../../src/contract/status-codes.ts";
import { createSimulator, type Simulator } from "../../src/simulator/create-simulator.ts";
import type { SimulatorOptions } from "../../src/simulator/simulator-options.ts";
import { runCli } from "../support/processes.ts";
import { placeOrderOn, startOnRedis } from "../support/redis-simulators.ts";
import { redisSkipReason, useRedis } from "../support/redis.ts";

const skip = redisSkipReason();

/** The shard numbers whose job hash holds something, from the keys on the database. */
function shardsHoldingJobs(keys: string[]): number[] {
  const shards = keys.flatMap((key) => {
    const match = /^ah:\{jobs:(\d+)\}:data$/.exec(key);
    return match === null ? [] : [Number(match[1])];
  });
  return shards.sort((a, b) => a - b);
}

describe.skipIf(skip !== undefined)(`redisJobShards${skip === undefined ? "" : ` (skipped: ${skip})`}`, () => {
  const { server, client } = useRedis();
  const simulators: Simulator[] = [];
  let database = 0;
  afterEach(async () => {
    for (const sim of simulators.splice(0).reverse()) await sim.close();
  });
  const start = (store: string, options: SimulatorOptions = {}) => startOnRedis(store, options, simulators);
  const freshStore = () => `${server().url.replace(/\/0$/, "")}/${++database}`;

  it("puts every order's step in the N shards it is told, and runs them from there", async () => {
    const store = freshStore();
    const sim = await start(store, { redisJobShards: 4 });
    for (let i = 0; i < 40; i++) expect((await placeOrderOn(sim, `shards-4-${i}`)).status).toBe(200);

    const redis = client();
    await redis.select(database);
    const keys = await redis.keys("ah:{jobs:*");
    // 40 job ids hashed over 4 shards: all four hold some, and none beyond them exists.
    expect(shardsHoldingJobs(keys)).toEqual([0, 1, 2, 3]);
    expect(await redis.get("ah:{jobs:0}:shards")).toBe("4");

    await sim.clock.advance(60_000);
    const orders = await sim.store.listOrders({ customerId: "demo" });
    expect(orders).toHaveLength(40);
    expect(orders.filter((order) => !isFinalStatus(DEFAULT_STATUS_TABLE, order.status))).toEqual([]);
    expect(shardsHoldingJobs(await redis.keys("ah:{jobs:*"))).toEqual([]);
  });

  it("refuses a second instance counting other shards on the same Redis, and admits one counting the same", async () => {
    const store = freshStore();
    await start(store, { redisJobShards: 4 });
    await expect(start(store, { redisJobShards: 8 })).rejects.toThrow(
      "redisJobShards 8 differs from the 4 shards the job queue on this Redis already has",
    );
    await expect(start(store)).rejects.toThrow("redisJobShards 16 differs from the 4 shards");
    const same = await start(store, { redisJobShards: 4 });
    expect((await placeOrderOn(same, "same-count")).status).toBe(200);
  });

  it("serve exits 2 when its config file counts other shards than the queue it joins", async () => {
    const store = freshStore();
    await start(store);
    const dir = await mkdtemp(join(tmpdir(), "job-shards-"));
    try {
      const config = join(dir, "airtime-sim.yaml");
      await writeFile(config, `store: ${store}\nredisJobShards: 32\n`);
      const serve = runCli(["serve", "--port", "0", "--config", config]);
      expect(await serve.exited).toBe(2);
      expect(serve.output()).toContain("redisJobShards 32 differs from the 16 shards");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses a count outside 1 to 1024, naming the setting's rule", async () => {
    await expect(createSimulator({ redisJobShards: 0 })).rejects.toThrow(/redisJobShards.*at least 1/s);
    await expect(createSimulator({ redisJobShards: 1025 })).rejects.toThrow(/redisJobShards.*at most 1024/s);
    await expect(createSimulator({ redisJobShards: 2.5 })).rejects.toThrow(/redisJobShards.*integer/s);
  });
});
