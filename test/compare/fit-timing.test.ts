import { describe, expect, it } from "vitest";
import { fitTiming } from "../../src/compare/calibrate.ts";
import { createSeededRandom } from "../../src/domain/ids.ts";
import { sampleDelay } from "../../src/domain/timing.ts";
import { quantile } from "../../src/compare/statistics.ts";

describe("fitTiming", () => {
  it("recovers p10, p50, p90 and p95 within 15 % from the simulator's own lognormal, and draws them back", () => {
    const sigma = Math.log(1200 / 300) / 1.6448536269514722;
    const random = createSeededRandom(7);
    const observed = Array.from({ length: 2000 }, () =>
      sampleDelay({ kind: "lognormal", medianMs: 300, sigma }, random),
    );
    const fitted = fitTiming(observed);
    expect(fitted?.points.map((point) => point.q)).toEqual([0, 0.1, 0.5, 0.9, 0.95, 1]);
    const refit = createSeededRandom(8);
    const reproduced = Array.from({ length: 4000 }, () => sampleDelay(fitted ?? { kind: "fixed", ms: 0 }, refit));
    for (const q of [0.1, 0.5, 0.9, 0.95]) {
      const truth = 300 * Math.exp(sigma * { 0.1: -1.2815516, 0.5: 0, 0.9: 1.2815516, 0.95: 1.6448536 }[q]!);
      expect(Math.abs(quantile(reproduced, q) - truth) / truth, `p${q * 100}`).toBeLessThan(0.15);
    }
    expect(Math.max(...reproduced)).toBeLessThanOrEqual(Math.max(...observed));
    expect(Math.min(...reproduced)).toBeGreaterThanOrEqual(Math.min(...observed));
  });

  it("fits a constant delay to durations without spread, and nothing to no data", () => {
    expect(fitTiming([500, 500, 500])?.points.every((point) => point.ms === 500)).toBe(true);
    expect(fitTiming([])).toBeUndefined();
  });
});
