import { describe, expect, it } from "vitest";
import { fitTiming } from "../../src/compare/fit-timing.ts";
import { createSeededRandom } from "../../src/domain/random.ts";
import { sampleDelay } from "../../src/domain/timing.ts";
import { quantile } from "../../src/compare/statistics.ts";

describe("fitTiming", () => {
  it("recovers p50 300 ms and p95 1.2 s within 15 % from the simulator's own lognormal", () => {
    const sigma = Math.log(1200 / 300) / 1.6448536269514722;
    const random = createSeededRandom(7);
    const observed = Array.from({ length: 400 }, () =>
      sampleDelay({ kind: "lognormal", medianMs: 300, sigma }, random),
    );
    const fitted = fitTiming(observed);
    expect(fitted?.kind).toBe("lognormal");
    const refit = createSeededRandom(8);
    const reproduced = Array.from({ length: 400 }, () => sampleDelay(fitted ?? { kind: "fixed", ms: 0 }, refit));
    expect(quantile(reproduced, 0.5)).toBeGreaterThan(300 * 0.85);
    expect(quantile(reproduced, 0.5)).toBeLessThan(300 * 1.15);
    expect(quantile(reproduced, 0.95)).toBeGreaterThan(1200 * 0.85);
    expect(quantile(reproduced, 0.95)).toBeLessThan(1200 * 1.15);
  });

  it("fits a fixed delay to durations without spread, and nothing to no data", () => {
    expect(fitTiming([500, 500, 500])).toEqual({ kind: "fixed", ms: 500 });
    expect(fitTiming([])).toBeUndefined();
  });
});
