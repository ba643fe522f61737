/**
 * The shape rule: each answer kind's JSON structure compared on both sides,
 * values ignored. A target whose balance holds an array where the
 * simulator writes an object diverges under it, though both read the same
 * amount through the profile's pointer. The simulator compared with itself
 * in that dialect shows no shape divergence over five seeds.
 */
import { afterEach, describe, expect, test } from "vitest";
import { compareShapes, shapeOf } from "../../src/compare/answer-shapes.ts";
import { formatCompareReport } from "../../src/compare/console-report.ts";
import { runCompare } from "../../src/compare/run-compare.ts";
import type { ProviderProfile } from "../../src/contract/provider-profile/schema.ts";
import { CompareTargets, REFERENCE_SETTINGS, TARGET_TOKEN } from "../support/compare-targets.ts";

describe("shapeOf", () => {
  test("paths with container and value types, array items under []; values ignored", () => {
    const one = shapeOf({ id: "TX1", balances: [{ available: 10, shortcode: null }], ok: true });
    expect(one).toEqual([
      "/: object",
      "/balances/[]/available: number",
      "/balances/[]/shortcode: null",
      "/balances/[]: object",
      "/balances: array",
      "/id: string",
      "/ok: boolean",
    ]);
    expect(shapeOf({ id: "TX2", balances: [{ available: 99, shortcode: null }], ok: false })).toEqual(one);
  });

  test("an object keyed by an index is not an array", () => {
    expect(shapeOf({ balances: { 0: { available: 10 } } })).toContain("/balances: object");
    expect(shapeOf({ balances: { 0: { available: 10 } } })).toContain("/balances/0/available: number");
  });
});

describe("compareShapes", () => {
  const sample = (lines: string[]) => ({ lines: Object.fromEntries(lines.map((line) => [line, 1])), answers: 1 });

  test("lists a field only the target writes, and one only the simulator writes", () => {
    const result = compareShapes(
      "answer shape: lookup",
      "lookup",
      sample(["found /: object", "found /history: array"]),
      sample(["found /: object", "found /data: object"]),
    );
    expect(result.agrees).toBe(false);
    expect(result.simulator).toMatchObject({ answers: { "found /history: array": 1 } });
    expect(result.target).toMatchObject({ answers: { "found /data: object": 1 } });
  });

  test("the same lines agree, and nothing compared is not judged", () => {
    expect(compareShapes("r", "send", sample(["placed /: object"]), sample(["placed /: object"])).agrees).toBe(true);
    expect(compareShapes("r", "send", { lines: {}, answers: 0 }, sample(["x /: object"])).agrees).toBe(true);
  });
});

const targets = new CompareTargets();
afterEach(() => targets.close());

/** The provider's balance as a list: `{"balances":[{"available":…}]}`. */
const LISTED: ProviderProfile = { profile: 1, bodies: { balance: { amount: "/balances/0/available" } } };
/** The same pointer, read by the simulator as an object keyed "0", as it wrote before arrays. */
const KEYED: ProviderProfile = {
  profile: 1,
  bodies: { balance: { amount: "/balances/0/available", containers: { "/balances": "object" } } },
};

describe("compare with a target whose balance is an array where the simulator writes an object", () => {
  test("a shape divergence on the balance, and no other", async () => {
    const target = await targets.simulator({ seed: 11, provider: LISTED });
    const report = await runCompare({
      target,
      token: TARGET_TOKEN,
      provider: KEYED,
      seed: 7,
      runs: 8,
      settleMs: 10_000,
      reference: REFERENCE_SETTINGS,
    });
    const divergences = report.results.filter((result) => !result.agrees);
    const text = formatCompareReport(report);
    expect(
      divergences.map((result) => result.rule),
      text,
    ).toEqual(["answer shape: balance"]);
    // The balance is read on both sides: the pointer alone cannot tell the containers apart.
    expect(report.results.find((result) => result.rule === "the balance is read")?.agrees).toBe(true);
    expect(divergences[0]?.target).toMatchObject({ answers: { "balance read /balances: array": expect.any(Number) } });
    expect(divergences[0]?.simulator).toMatchObject({
      answers: { "balance read /balances: object": expect.any(Number) },
    });
  });
});

describe("compare with the simulator speaking the same dialect", () => {
  test.each([1, 2, 3, 4, 5])("seed %i: every answer shape agrees, each judged on both sides", async (seed) => {
    const target = await targets.simulator({ seed: seed + 2000, provider: LISTED });
    const report = await runCompare({
      target,
      token: TARGET_TOKEN,
      provider: LISTED,
      seed,
      runs: 8,
      settleMs: 10_000,
      reference: REFERENCE_SETTINGS,
    });
    const shapes = report.results.filter((result) => result.rule.startsWith("answer shape: "));
    expect(
      shapes.filter((result) => !result.agrees),
      formatCompareReport(report),
    ).toEqual([]);
    // Judged, not vacuous: each kind's answers were compared, the balance's list among them.
    for (const rule of ["answer shape: send", "answer shape: lookup", "answer shape: balance"]) {
      expect(shapes.find((result) => result.rule === rule)?.observations, rule).toBeGreaterThan(0);
    }
  });
});
