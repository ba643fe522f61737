/** Seeded probabilistic rules and sampled delays replay exactly for the same seed. */
import { expect, test } from "vitest";
import type { ResolvedEffects } from "../../src/domain/scenario-engine.ts";
import { createScenarioEngine } from "../../src/scenarios/engine.ts";
import type { LoadedScenario } from "../../src/scenarios/load.ts";
import { facts, scenario } from "./engine-helpers.ts";

function chaos(seed?: number): LoadedScenario {
  return scenario({
    name: "chaos",
    description: "coins and sampled delays",
    seed,
    rules: [
      {
        name: "throttle",
        match: { probability: 0.3 },
        effects: { httpError: { status: 429, retryAfter: 1, when: "before_commit" } },
      },
      { name: "fail", match: { probability: 0.2 }, effects: { outcome: { status: 2, after: "1s..5s" } } },
      { name: "latency", effects: { latency: "lognormal:200ms,0.8", webhook: { delay: "0ms..3s" } } },
    ],
  });
}

async function sequence(loaded: LoadedScenario, engineSeed = 0, requests = 60): Promise<ResolvedEffects[]> {
  const engine = createScenarioEngine({ seed: engineSeed, scenarios: [loaded], magicAccounts: false });
  engine.activate("chaos");
  const results: ResolvedEffects[] = [];
  for (let i = 0; i < requests; i++) results.push(await engine.evaluate(facts({ reference: `r-${i}` })));
  return results;
}

test("the same scenario seed gives the same sequence of effects", async () => {
  const first = await sequence(chaos(99));
  expect(await sequence(chaos(99))).toEqual(first);
  // The sequence is not trivial: both coins land both ways, and delays vary.
  const fired = first.map((effects) => effects.fired.join(","));
  expect(fired.filter((f) => f.includes("throttle")).length).toBeGreaterThan(5);
  expect(fired.filter((f) => !f.includes("throttle")).length).toBeGreaterThan(5);
  expect(new Set(first.map((effects) => effects.latencyMs)).size).toBeGreaterThan(30);
});

test("a different scenario seed gives a different sequence", async () => {
  const a = await sequence(chaos(99));
  const b = await sequence(chaos(100));
  expect(b.map((effects) => effects.fired)).not.toEqual(a.map((effects) => effects.fired));
});

test("without a scenario seed the engine seed decides, reproducibly", async () => {
  expect(await sequence(chaos(), 5)).toEqual(await sequence(chaos(), 5));
  expect((await sequence(chaos(), 6)).map((e) => e.latencyMs)).not.toEqual(
    (await sequence(chaos(), 5)).map((e) => e.latencyMs),
  );
});

test("a scenario's own seed wins over the engine seed", async () => {
  expect(await sequence(chaos(42), 1)).toEqual(await sequence(chaos(42), 2));
});

test("re-activating a scenario starts its sequence afresh", async () => {
  const engine = createScenarioEngine({ scenarios: [chaos(7)], magicAccounts: false });
  engine.activate("chaos");
  const first = [];
  for (let i = 0; i < 10; i++) first.push(await engine.evaluate(facts({ reference: `r-${i}` })));
  engine.deactivate("chaos");
  engine.activate("chaos");
  const again = [];
  for (let i = 0; i < 10; i++) again.push(await engine.evaluate(facts({ reference: `r-${i}` })));
  expect(again).toEqual(first);
});
