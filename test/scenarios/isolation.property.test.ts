/**
 * Scenarios scoped to one customer (activation) or to one request (the
 * X-Sim-Scenario header) never change what another customer's traffic gets:
 * whatever the interleaving, each customer sees exactly the effects it would
 * see alone. The property is also run against two deliberately broken
 * engines, and must catch both.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { RequestFacts, ResolvedEffects } from "../../src/domain/scenario-engine.ts";
import { createScenarioEngine, type ManagedScenarioEngine } from "../../src/scenarios/engine.ts";
import { facts, scenario } from "./engine-helpers.ts";

const CUSTOMERS = ["alpha", "bravo"] as const;
type CustomerId = (typeof CUSTOMERS)[number];

const SCENARIOS = [
  scenario({
    name: "coin",
    description: "a seeded coin decides 503s and a sampled latency",
    seed: 11,
    rules: [
      {
        name: "maybe-503",
        match: { probability: 0.5 },
        effects: { httpError: { status: 503, when: "before_commit" } },
      },
      { name: "jitter", effects: { latency: "0ms..500ms" } },
    ],
  }),
  scenario({
    name: "flaky",
    description: "503 on the first two attempts, then a lost response",
    rules: [
      { name: "503-twice", match: { firstN: 2 }, effects: { httpError: { status: 503, when: "before_commit" } } },
      { name: "lost", match: { attempt: 3 }, effects: { dropResponse: { when: "after_commit" } } },
    ],
  }),
  scenario({
    name: "slow-airtel",
    description: "airtel is slow",
    rules: [{ name: "slow", match: { service: "airtel" }, effects: { latency: "lognormal:1s,0.5" } }],
  }),
];

interface Request {
  readonly customer: CustomerId;
  readonly key: number;
  readonly airtel: boolean;
  readonly header: "none" | "coin" | "flaky" | "coin,flaky";
}

const requestArb: fc.Arbitrary<Request> = fc.record({
  customer: fc.constantFrom(...CUSTOMERS),
  key: fc.nat({ max: 3 }),
  airtel: fc.boolean(),
  header: fc.constantFrom("none", "coin", "flaky", "coin,flaky"),
});

/** Which scenarios each customer has active (per customer), drawn per run. */
const activationArb = fc.record({
  alpha: fc.subarray(["coin", "flaky", "slow-airtel"]),
  bravo: fc.subarray(["coin", "flaky", "slow-airtel"]),
});

type Activations = { readonly [C in CustomerId]: readonly string[] };
type EngineFactory = (activations: Activations) => ManagedScenarioEngine;

const correctEngine: EngineFactory = (activations) => {
  const engine = createScenarioEngine({ seed: 3, scenarios: SCENARIOS, magicAccounts: false });
  for (const customer of CUSTOMERS) for (const name of activations[customer]) engine.activate(name, { customer });
  return engine;
};

/** Broken: request- and customer-scoped state (generators, counters) shared by every customer. */
const sharedStateEngine: EngineFactory = (activations) => {
  const engine = createScenarioEngine({
    seed: 3,
    scenarios: SCENARIOS,
    magicAccounts: false,
    stateScope: (kind) => kind,
  });
  for (const customer of CUSTOMERS) for (const name of activations[customer]) engine.activate(name, { customer });
  return engine;
};

/** Broken: a per-customer activation that forgets its customer and applies to everyone. */
const leakyActivationEngine: EngineFactory = (activations) => {
  const engine = createScenarioEngine({ seed: 3, scenarios: SCENARIOS, magicAccounts: false });
  for (const customer of CUSTOMERS) for (const name of activations[customer]) engine.activate(name);
  return engine;
};

function toFacts(request: Request): RequestFacts {
  return facts({
    customerId: request.customer,
    account: request.airtel ? "+254733000123" : "+254712000123",
    service: request.airtel ? "airtel" : "safaricom",
    idempotencyKey: `key-${request.key}`,
    reference: `ref-${request.key}`,
    ...(request.header === "none" ? {} : { requestedScenario: request.header }),
  });
}

async function run(engine: ManagedScenarioEngine, requests: readonly Request[]): Promise<ResolvedEffects[]> {
  const results: ResolvedEffects[] = [];
  for (const request of requests) results.push(await engine.evaluate(toFacts(request)));
  return results;
}

function isolationProperty(makeEngine: EngineFactory) {
  return fc.asyncProperty(activationArb, fc.array(requestArb, { maxLength: 30 }), async (activations, requests) => {
    const interleaved = await run(makeEngine(activations), requests);
    for (const customer of CUSTOMERS) {
      const own = requests.filter((request) => request.customer === customer);
      const alone = await run(makeEngine(activations), own);
      const together = interleaved.filter((_, index) => requests[index]?.customer === customer);
      expect(together).toEqual(alone);
    }
  });
}

describe("customer- and request-scoped scenarios are isolated per customer", () => {
  test("each customer's effects are the same with or without the other customer's interleaved traffic", async () => {
    await fc.assert(isolationProperty(correctEngine), { numRuns: 60, seed: 20_260_101 });
  });

  test("the property catches an engine that shares scoped state between customers", async () => {
    const result = await fc.check(isolationProperty(sharedStateEngine), { numRuns: 200, seed: 20_260_101 });
    expect(result.failed).toBe(true);
  });

  test("the property catches a per-customer activation that leaks to every customer", async () => {
    const result = await fc.check(isolationProperty(leakyActivationEngine), { numRuns: 200, seed: 20_260_101 });
    expect(result.failed).toBe(true);
  });

  test("a customer's scenarios never show up in another customer's fired rules", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(requestArb, { maxLength: 30 }), async (requests) => {
        const engine = correctEngine({ alpha: ["coin", "flaky", "slow-airtel"], bravo: [] });
        const plain = requests.map((request) => ({ ...request, header: "none" as const }));
        const results = await run(engine, plain);
        results.forEach((effects, index) => {
          if (plain[index]?.customer === "bravo") expect(effects.fired).toEqual([]);
        });
      }),
      { numRuns: 40, seed: 7 },
    );
  });
});
