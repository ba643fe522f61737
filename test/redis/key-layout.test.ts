/**
 * The key layout's version on a real redis-server: a simulator records the
 * layout it writes on a database that has none, and refuses one holding
 * another (as `serve`, exit 2), naming both: a database written by layout 1
 * code (its job queue's shard count recorded, no layout) or by a later one.
 */
import { afterEach, describe, expect, it } from "vitest";
import { KEY_LAYOUT } from "../../src/redis/redis-keys.ts";
import type { Simulator } from "../../src/simulator/create-simulator.ts";
import { runCli } from "../support/processes.ts";
import { placeOrderOn, startOnRedis } from "../support/redis-simulators.ts";
import { redisSkipReason, useRedis } from "../support/redis.ts";

const skip = redisSkipReason();

describe.skipIf(skip !== undefined)(`the key layout${skip === undefined ? "" : ` (skipped: ${skip})`}`, () => {
  const { server, client } = useRedis();
  const simulators: Simulator[] = [];
  let database = 0;
  afterEach(async () => {
    for (const sim of simulators.splice(0).reverse()) await sim.close();
  });
  /** A database of its own, and a client selected on it. */
  const freshStore = async () => {
    const redis = client();
    await redis.select(++database);
    return { store: `${server().url.replace(/\/0$/, "")}/${database}`, redis };
  };

  it("records its layout on an empty database, and a second instance joins it", async () => {
    const { store, redis } = await freshStore();
    const first = await startOnRedis(store, {}, simulators);
    expect(await redis.get("ah:{jobs:0}:layout")).toBe(String(KEY_LAYOUT));
    expect((await placeOrderOn(first, "layout-first")).status).toBe(200);
    const second = await startOnRedis(store, {}, simulators);
    expect((await placeOrderOn(second, "layout-second")).status).toBe(200);
    // The order is one record in its customer's book: no hash of versions or references beside it.
    const keys = await redis.keys("ah:{demo}:*");
    expect(keys).toContain("ah:{demo}:book");
    for (const gone of ["orders", "versions", "references", "idempotency", "order-counter"])
      expect(keys).not.toContain(`ah:{demo}:${gone}`);
  });

  it("refuses a database that layout 1 code wrote, naming both layouts", async () => {
    const { store, redis } = await freshStore();
    // What layout 1 code leaves: the queue's shard count, no layout record.
    await redis.set("ah:{jobs:0}:shards", "16");
    await redis.hset("ah:{demo}:versions", "ord_1", "1");
    await expect(startOnRedis(store, {}, simulators)).rejects.toThrow(
      `this Redis holds the simulator's keys in layout 1, and this version reads and writes layout ${KEY_LAYOUT}`,
    );
    // Refused without writing: the database still reads as layout 1.
    expect(await redis.get("ah:{jobs:0}:layout")).toBeNull();
  });

  it("serve exits 2 on a database recording another layout", async () => {
    const { store, redis } = await freshStore();
    await redis.set("ah:{jobs:0}:layout", "3");
    const serve = runCli(["serve", "--port", "0", "--store", store]);
    expect(await serve.exited).toBe(2);
    expect(serve.output()).toContain(`keys in layout 3, and this version reads and writes layout ${KEY_LAYOUT}`);
  });
});
