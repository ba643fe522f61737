/**
 * The HTTP suite runs on the store its project names: the memory store in
 * `unit`, a real Redis in `redis` (AIRTIME_TEST_STORE=redis). Without this a
 * broken helper would run the Redis project on memory and prove nothing.
 */
import { Redis } from "ioredis";
import { afterEach, expect, it } from "vitest";
import type { Simulator } from "../../src/simulator/create-simulator.ts";
import type { MemoryStore } from "../../src/store/memory-store.ts";
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

/** How many records the store under test holds: its Redis database's keys, or the memory store's orders. */
async function heldRecords(sim: Simulator, url: string | undefined): Promise<number> {
  if (url === undefined) {
    return (sim.store as MemoryStore).exportState().orders.length;
  }
  const redis = new Redis(url);
  try {
    return await redis.dbsize();
  } finally {
    redis.disconnect();
  }
}

// One test for both projects, so that neither of them reports a skip.
it(`an order placed through the helpers' simulator is kept in ${ON_REDIS ? "its Redis database" : "its memory store"}`, async () => {
  const url = ON_REDIS ? ((await testStore()) as string) : undefined;
  const sim = await startSimulator(url === undefined ? {} : { store: url });
  open.push(sim);
  const before = await heldRecords(sim, url);
  if (ON_REDIS) expect(before).toBeGreaterThan(0); // the demo customer
  expect((await placeOrder(sim, orderBody(), { "idempotency-key": "k2" })).status).toBe(200);
  expect(await heldRecords(sim, url)).toBeGreaterThan(before);
});
