import { describe, expect, it } from "vitest";
import { compareRates, compareTimings, fidelityScores } from "../../src/compare/rules.ts";

/** Durations spread evenly between `from` and `to`, so no test depends on chance. */
function spread(from: number, to: number, n: number): number[] {
  return Array.from({ length: n }, (_, i) => from + ((to - from) * i) / (n - 1));
}

describe("compareRates", () => {
  it("reports 30 % failures against 10 %, with both intervals", () => {
    const result = compareRates("failed share of finals", "send", { count: 10, n: 100 }, { count: 30, n: 100 });
    expect(result.agrees).toBe(false);
    expect(result.pValue).toBeLessThan(0.01);
    expect(result.simulator).toMatchObject({ count: 10, n: 100, rate: 0.1 });
    expect(result.target).toMatchObject({ count: 30, n: 100, rate: 0.3 });
    expect("interval" in result.target && result.target.interval.low).toBeGreaterThan(0.1);
  });

  it("lets sampling noise and tiny gaps agree", () => {
    expect(compareRates("r", "send", { count: 10, n: 100 }, { count: 13, n: 100 }).agrees).toBe(true);
    expect(compareRates("r", "send", { count: 1000, n: 10_000 }, { count: 1300, n: 10_000 }).agrees).toBe(true);
    expect(compareRates("r", "send", { count: 0, n: 0 }, { count: 3, n: 3 }).agrees).toBe(true);
  });
});

describe("compareTimings", () => {
  it("reports finals twice as slow, with p50 and p95 of both sides", () => {
    const result = compareTimings("pending to final", "send", spread(200, 400, 40), spread(400, 800, 40));
    expect(result.agrees).toBe(false);
    expect(result.simulator).toMatchObject({ n: 40, p50: 300 });
    expect(result.target).toMatchObject({ n: 40, p50: 600 });
  });

  it("lets a few milliseconds of jitter agree even when the test notices them", () => {
    const result = compareTimings("pending to final", "send", spread(1000, 1010, 200), spread(1005, 1015, 200));
    expect(result.pValue).toBeLessThan(0.01);
    expect(result.agrees).toBe(true);
  });

  it("lets a gap within the poller's observation error agree, and not one beyond it", () => {
    const simulator = spread(150, 350, 200);
    const target = spread(190, 390, 200); // 40 ms later throughout: significant, and over 10 % at p50
    expect(compareTimings("t", "send", simulator, target).agrees).toBe(false);
    const errors = (ms: number) => ({ simulator: spread(0, 2 * ms, 50), target: spread(0, 2 * ms, 50) });
    const loaded = compareTimings("t", "send", simulator, target, errors(25));
    expect(loaded.agrees).toBe(true);
    expect(loaded.test).toContain("observation error (p50 50 ms, p95 95 ms)");
    expect(compareTimings("t", "send", simulator, target, errors(10)).agrees).toBe(false);
    // Four times as slow stands out of any plausible lateness.
    expect(compareTimings("t", "send", simulator, spread(600, 1400, 200), errors(100)).agrees).toBe(false);
  });

  it("does not judge too few timings", () => {
    const result = compareTimings("pending to final", "send", [1, 2, 3], [100, 200, 300]);
    expect(result.agrees).toBe(true);
    expect(result.observations).toBe(0);
  });
});

describe("fidelityScores", () => {
  it("weighs each rule by the observations it compared", () => {
    const scores = fidelityScores([
      compareRates("a", "send", { count: 10, n: 100 }, { count: 30, n: 100 }),
      compareRates("b", "send", { count: 10, n: 300 }, { count: 10, n: 300 }),
      compareRates("c", "lookup", { count: 5, n: 50 }, { count: 5, n: 50 }),
    ]);
    expect(scores.send).toBe(0.75);
    expect(scores.lookup).toBe(1);
    expect(scores.balance).toBeUndefined();
    expect(scores.overall).toBeCloseTo(350 / 450, 10);
  });
});
