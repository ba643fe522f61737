/**
 * The Clock tab's "Next order step" comes from the scheduler, so a step due
 * on a final order (a success reversed later) shows, on the memory store and
 * on the Redis store, whose steps wait in Redis's shared queue.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createDashboardPlugin } from "../../src/dashboard/dashboard-plugin.ts";
import { createSimulator, type Simulator } from "../../src/simulator/create-simulator.ts";
import type { SimulatorOptions } from "../../src/simulator/simulator-options.ts";
import { admin, bearer, send } from "../support/http.ts";
import { redisSkipReason } from "../support/redis.ts";
import { placeOrderOn, SHARED_TOKEN, useRedisSimulators } from "../support/redis-simulators.ts";

const START = Date.UTC(2026, 0, 1);
const OPTIONS: SimulatorOptions = {
  startAt: START,
  timing: "2s",
  scenarios: { library: false, magicAccounts: true },
  plugins: [createDashboardPlugin()],
};
/** Succeeds after the timing, then is reversed 10 s later (docs/scenarios.md, magic accounts). */
const REVERSED_ACCOUNT = "0700000004";

async function placeReversed(sim: Simulator, reference: string): Promise<void> {
  const placed = await send(sim.url, "/v1/airtime", {
    method: "POST",
    headers: { ...bearer(SHARED_TOKEN), "idempotency-key": reference },
    body: { account: REVERSED_ACCOUNT, amount: 10, currency: "KES", reference },
  });
  expect(placed.status).toBe(200);
}

/** The order's status and the Clock tab's data once the clock has moved by `ms`. */
async function expectAfter(sim: Simulator, ms: number, status: number, schedule: object): Promise<void> {
  await sim.clock.advance(ms);
  const lookup = await send(sim.url, "/v1/airtime/reversed-later", { headers: bearer(SHARED_TOKEN) });
  expect(lookup.body.status).toBe(status);
  expect((await admin(sim, "/schedule")).body).toMatchObject(schedule);
}

/** Places an order that is reversed after its success, and reads the Clock tab's data at each step. */
async function expectReversalShown(sim: Simulator): Promise<void> {
  await placeReversed(sim, "reversed-later");
  await expectAfter(sim, 0, 0, { pendingOrders: 1, nextOrderStepAt: "2026-01-01T00:00:02.000Z" });
  // Final and no longer pending, yet its reversal is due: the tab must say when.
  await expectAfter(sim, 2_000, 20, { pendingOrders: 0, nextOrderStepAt: "2026-01-01T00:00:12.000Z" });
  await expectAfter(sim, 10_000, 8, { pendingOrders: 0, nextOrderStepAt: null });
}

describe("the next order step on the memory store", () => {
  let sim: Simulator | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  it("names a final order's reversal still to come", async () => {
    sim = await createSimulator({
      clock: "virtual",
      demo: { token: SHARED_TOKEN, balance: 100_000 },
      ...OPTIONS,
    });
    await sim.listen(0);
    await expectReversalShown(sim);
  });
});

const skip = redisSkipReason();

describe.skipIf(skip !== undefined)(
  `the next order step on the Redis store${skip === undefined ? "" : ` (skipped: ${skip})`}`,
  () => {
    const simulators = useRedisSimulators();

    it("names a final order's reversal still to come", async () => {
      const [sim] = (await simulators(1, OPTIONS)) as [Simulator];
      await expectReversalShown(sim);
    });

    it("names the earliest step of any order, whichever instance placed it", async () => {
      const [one, two] = (await simulators(2, OPTIONS)) as [Simulator, Simulator];
      await placeReversed(one, "reversed-on-one");
      await one.clock.advance(1_000);
      expect((await placeOrderOn(two, "plain-on-two")).status).toBe(200);
      await two.clock.advance(1_000);
      // one's order is final at 2 s (reversal at 12 s); two's succeeds at 3 s.
      expect((await admin(one, "/schedule")).body.nextOrderStepAt).toBe("2026-01-01T00:00:03.000Z");
      await one.clock.advance(1_000);
      expect((await admin(two, "/schedule")).body.nextOrderStepAt).toBe("2026-01-01T00:00:12.000Z");
    });
  },
);
