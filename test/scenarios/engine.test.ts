/** The engine's documented rules: evaluation order, first setter wins, attempt counting, activation. */
import { describe, expect, test } from "vitest";
import { createScenarioEngine } from "../../src/scenarios/engine.ts";
import { facts, scenario } from "./engine-helpers.ts";

const slow = scenario({
  name: "slow",
  description: "latency and a failure",
  rules: [{ name: "slow", effects: { latency: "1s", outcome: { status: 2, after: "5s" } } }],
});
const fast = scenario({
  name: "fast",
  description: "other latency, a webhook fault",
  rules: [{ name: "fast", effects: { latency: "10ms", webhook: { duplicate: 1 } } }],
});
const outage = scenario({
  name: "outage",
  description: "503 for airtel",
  rules: [
    {
      name: "airtel",
      match: { service: "airtel" },
      effects: { httpError: { status: 503, retryAfter: 9, when: "before_commit" } },
    },
  ],
});

describe("evaluation order", () => {
  test("header scenarios, then the customer's, then global ones, then the magic accounts", async () => {
    const engine = createScenarioEngine({ scenarios: [slow, fast, outage] });
    engine.activate("outage");
    engine.activate("fast", { customer: "acme" });
    const effects = await engine.evaluate(
      facts({ account: "+254700000011", service: "airtel", requestedScenario: "slow" }),
    );
    expect(effects.fired).toEqual(["slow/slow", "fast/fast", "outage/airtel", "magic-accounts/duplicate-webhook"]);
    // The first rule to set a field keeps it: the header scenario's latency and outcome win.
    expect(effects.latencyMs).toBe(1000);
    expect(effects.plan).toEqual({ steps: [{ afterMs: 5000, status: 2 }] });
    expect(effects.beforeCommit).toEqual({ kind: "error", status: 503, retryAfterSeconds: 9 });
    // Webhook faults merge field by field: fast set duplicates first.
    expect(effects.webhookFaults).toEqual({ duplicates: 1 });
  });

  test("within a scenario, rules run top to bottom and the first setter of a field wins", async () => {
    const layered = scenario({
      name: "layered",
      description: "two rules both setting the outcome",
      rules: [
        { name: "first", match: { amount: { min: 50 } }, effects: { outcome: { status: 6, after: "1s" } } },
        { name: "second", effects: { outcome: { status: 20, after: "2s" }, insufficientBalance: true } },
      ],
    });
    const engine = createScenarioEngine({ scenarios: [layered], magicAccounts: false });
    engine.activate("layered");
    const effects = await engine.evaluate(facts({ amountCents: 10_000 }));
    expect(effects.fired).toEqual(["layered/first", "layered/second"]);
    expect(effects.plan?.steps).toEqual([{ afterMs: 1000, status: 6 }]);
    expect(effects.forceInsufficient).toBe(true);
    const small = await engine.evaluate(facts({ amountCents: 1_000, reference: "ref-2" }));
    expect(small.fired).toEqual(["layered/second"]);
    expect(small.plan?.steps).toEqual([{ afterMs: 2000, status: 20 }]);
  });

  test("an outcome without `after` takes the simulator's default timing", async () => {
    const engine = createScenarioEngine({ defaultOutcomeTiming: { kind: "fixed", ms: 1234 } });
    const effects = await engine.evaluate(facts({ account: "+254700000001" }));
    expect(effects.plan).toEqual({ steps: [{ afterMs: 1234, status: 2 }] });
  });

  test("nothing fires for an ordinary account with no scenario active", async () => {
    const engine = createScenarioEngine({ scenarios: [slow] });
    expect(await engine.evaluate(facts())).toEqual({ fired: [] });
  });

  test("an X-Sim-Scenario naming no loaded scenario is a rejection, not a silent no-op", async () => {
    const engine = createScenarioEngine({ scenarios: [slow] });
    const effects = await engine.evaluate(facts({ requestedScenario: "slow, nope" }));
    expect(effects.rejection?.code).toBe("unknown_scenario");
    expect(effects.rejection?.detail).toContain("'nope'");
  });

  test("the magic accounts can be turned off", async () => {
    const engine = createScenarioEngine({ magicAccounts: false });
    expect((await engine.evaluate(facts({ account: "+254700000017" }))).fired).toEqual([]);
  });
});

describe("attempt selectors count per rule and per idempotency key (or reference)", () => {
  const flaky = scenario({
    name: "flaky",
    description: "503 twice, drop the third",
    rules: [
      { name: "503-twice", match: { firstN: 2 }, effects: { httpError: { status: 503, when: "before_commit" } } },
      { name: "drop-third", match: { attempt: 3 }, effects: { dropResponse: { when: "after_commit" } } },
    ],
  });

  test("a client retrying with one key sees 503, 503, a drop, then nothing", async () => {
    const engine = createScenarioEngine({ scenarios: [flaky], magicAccounts: false });
    engine.activate("flaky");
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push(await engine.evaluate(facts({ idempotencyKey: "k1" })));
    expect(seen.map((effects) => effects.fired)).toEqual([
      ["flaky/503-twice"],
      ["flaky/503-twice"],
      ["flaky/drop-third"],
      [],
    ]);
    expect(seen[2]?.afterCommit).toEqual({ kind: "drop" });
  });

  test("another key starts its own count; without a key the reference is counted", async () => {
    const engine = createScenarioEngine({ scenarios: [flaky], magicAccounts: false });
    engine.activate("flaky");
    await engine.evaluate(facts({ idempotencyKey: "k1" }));
    await engine.evaluate(facts({ idempotencyKey: "k1" }));
    expect((await engine.evaluate(facts({ idempotencyKey: "k2" }))).fired).toEqual(["flaky/503-twice"]);
    expect((await engine.evaluate(facts({ reference: "no-key" }))).fired).toEqual(["flaky/503-twice"]);
    expect((await engine.evaluate(facts({ reference: "no-key" }))).fired).toEqual(["flaky/503-twice"]);
    expect((await engine.evaluate(facts({ reference: "no-key" }))).fired).toEqual(["flaky/drop-third"]);
  });

  test("two customers using the same key are counted apart", async () => {
    const engine = createScenarioEngine({ scenarios: [flaky], magicAccounts: false });
    engine.activate("flaky");
    await engine.evaluate(facts({ idempotencyKey: "shared" }));
    await engine.evaluate(facts({ idempotencyKey: "shared" }));
    expect((await engine.evaluate(facts({ customerId: "other", idempotencyKey: "shared" }))).fired).toEqual([
      "flaky/503-twice",
    ]);
  });

  test("a customer reset starts its counting again, and only its own", async () => {
    const engine = createScenarioEngine({ scenarios: [flaky], magicAccounts: false });
    engine.activate("flaky");
    for (const customerId of ["acme", "other"]) {
      await engine.evaluate(facts({ customerId, idempotencyKey: "k" }));
      await engine.evaluate(facts({ customerId, idempotencyKey: "k" }));
    }
    engine.resetState("acme");
    expect((await engine.evaluate(facts({ idempotencyKey: "k" }))).fired).toEqual(["flaky/503-twice"]);
    expect((await engine.evaluate(facts({ customerId: "other", idempotencyKey: "k" }))).fired).toEqual([
      "flaky/drop-third",
    ]);
  });
});

describe("activation", () => {
  test("a customer's scenario applies to that customer only, until deactivated", async () => {
    const engine = createScenarioEngine({ scenarios: [slow], magicAccounts: false });
    expect(engine.activate("slow", { customer: "acme" })).toEqual({ kind: "activated" });
    expect(engine.activate("slow", { customer: "acme" })).toEqual({ kind: "already_active" });
    expect((await engine.evaluate(facts())).fired).toEqual(["slow/slow"]);
    expect((await engine.evaluate(facts({ customerId: "other" }))).fired).toEqual([]);
    expect(engine.list().active).toEqual({ global: [], customers: { acme: ["slow"] } });
    expect(engine.deactivate("slow", { customer: "acme" })).toEqual({ kind: "deactivated" });
    expect(engine.deactivate("slow", { customer: "acme" })).toEqual({ kind: "not_active" });
    expect((await engine.evaluate(facts())).fired).toEqual([]);
  });

  test("an unknown name cannot be activated", () => {
    const engine = createScenarioEngine();
    expect(engine.activate("nope")).toEqual({ kind: "unknown_scenario", name: "nope" });
  });

  test("replacing a loaded scenario takes effect for active scopes at once", async () => {
    const engine = createScenarioEngine({ scenarios: [slow], magicAccounts: false });
    engine.activate("slow");
    const replacement = scenario({
      name: "slow",
      description: "now slower",
      rules: [{ name: "slower", effects: { latency: "9s" } }],
    });
    expect(engine.add([replacement])).toEqual({ kind: "added", replaced: ["slow"] });
    const effects = await engine.evaluate(facts());
    expect(effects.fired).toEqual(["slow/slower"]);
    expect(effects.latencyMs).toBe(9000);
  });
});
