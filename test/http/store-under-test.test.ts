/**
 * The HTTP suite runs on the store its project names: the memory store in
 * `unit`, a real Redis in `redis` (AIRTIME_TEST_STORE=redis). Without this a
 * broken helper would run the Redis project on memory and prove nothing.
 */
import { Redis } from "ioredis";
import { afterEach, expect, it } from "vitest";
import type { Simulator } from "../../src/simulator/create-simulator.ts";
import { orderBody, placeOrder, startSimulator } from "../support/http.ts";
import { ON_REDIS, testStore } from "../support/test-store.ts";

const open: Simulator[] = [];
afterEach(async () => {
  for (const sim of open.splice(0)) await sim.close();
});

it(`the helpers' simulators run on ${ON_REDIS ? "Redis" : "the memory store"}`, async () => {
  const sim = await startSimulator();
  open.push(sim);
  // Only the memory store can save its whole state in-process (for --state-file).
  expect("exportState" in sim.store).toBe(!ON_REDIS);
  expect((await placeOrder(sim, orderBody(), { "idempotency-key": "k1" })).status).toBe(200);
});

it.runIf(ON_REDIS)("an order placed through the helpers' simulator is kept in its Redis database", async () => {
  const url = (await testStore()) as string;
  const sim = await startSimulator({ store: url });
  open.push(sim);
  const redis = new Redis(url);
  try {
    expect(await redis.dbsize()).toBeGreaterThan(0); // the demo customer
    const before = await redis.dbsize();
    expect((await placeOrder(sim, orderBody(), { "idempotency-key": "k2" })).status).toBe(200);
    expect(await redis.dbsize()).toBeGreaterThan(before);
  } finally {
    redis.disconnect();
  }
});
