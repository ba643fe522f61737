/**
 * Scenario attempt counts of simulators sharing a Redis store: a client
 * retrying one order with one key, its attempts spread over two instances,
 * meets each attempt rule at the attempt it names across both, as it would
 * on one instance; a reset on one restarts the counts for both.
 */
import { describe, expect, it } from "vitest";
import type { Simulator } from "../../src/simulator/create-simulator.ts";
import { admin } from "../support/http.ts";
import { redisSkipReason } from "../support/redis.ts";
import { placeOrderOn, useRedisSimulators } from "../support/redis-simulators.ts";

const skip = redisSkipReason();

/** The statuses of `attempts` tries of one order with one key, alternating between the instances. */
async function retries(sims: readonly Simulator[], reference: string, attempts: number, headers = {}) {
  const statuses: number[] = [];
  for (let i = 0; i < attempts; i++) {
    statuses.push((await placeOrderOn(sims[i % sims.length] as Simulator, reference, headers)).status);
  }
  return statuses;
}

describe.skipIf(skip !== undefined)(
  `shared scenario counters${skip === undefined ? "" : ` (skipped: ${skip})`}`,
  () => {
    const simulators = useRedisSimulators();

    it("flaky-gateway active on both: attempts 1 and 2 fail and 3 goes through, whichever instance each reaches", async () => {
      const sims = await simulators(2, { scenarios: { active: ["flaky-gateway"] } });
      expect(await retries(sims, "flaky-1", 4)).toEqual([503, 502, 200, 200]);
      // Another key counts from 1 again.
      expect(await retries([...sims].reverse(), "flaky-2", 3)).toEqual([503, 502, 200]);
    });

    it("sent in X-Sim-Scenario: counted across instances, and a reset on one restarts the count on both", async () => {
      const sims = await simulators(2, { scenarios: {} });
      const header = { "x-sim-scenario": "flaky-gateway" };
      expect(await retries(sims, "header-1", 2, header)).toEqual([503, 502]);
      expect((await admin(sims[1] as Simulator, "/reset?customer=demo", { method: "POST" })).status).toBe(200);
      expect(await retries(sims, "header-1", 3, header)).toEqual([503, 502, 200]);
    });
  },
);
