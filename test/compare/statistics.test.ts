import { describe, expect, it } from "vitest";
import {
  kolmogorovSmirnov,
  normalCdf,
  quantile,
  summarise,
  twoProportionPValue,
  wilsonInterval,
} from "../../src/compare/statistics.ts";

/** A deterministic uniform stream (a linear congruential generator), so no test depends on chance. */
function uniforms(seed: number, n: number): number[] {
  let state = seed;
  return Array.from({ length: n }, () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  });
}

describe("quantile and summarise", () => {
  it("interpolates between order statistics", () => {
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantile([4, 1, 3, 2], 0)).toBe(1);
    expect(quantile([4, 1, 3, 2], 1)).toBe(4);
    expect(quantile([], 0.5)).toBeNaN();
  });

  it("summarises p50, p95 and max", () => {
    const values = Array.from({ length: 101 }, (_, i) => i);
    expect(summarise(values)).toEqual({ n: 101, p50: 50, p95: 95, max: 100 });
  });
});

describe("wilsonInterval", () => {
  it("matches the published 99 % interval for 10 of 100", () => {
    const { low, high } = wilsonInterval(10, 100);
    expect(low).toBeCloseTo(0.046, 3);
    expect(high).toBeCloseTo(0.2038, 3);
  });

  it("stays inside 0..1 at the edges and is the whole range without data", () => {
    expect(wilsonInterval(0, 20).low).toBeCloseTo(0, 12);
    expect(wilsonInterval(20, 20).high).toBeCloseTo(1, 12);
    expect(wilsonInterval(0, 0)).toEqual({ low: 0, high: 1 });
  });
});

describe("normalCdf and twoProportionPValue", () => {
  it("knows the normal CDF", () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 6);
    expect(normalCdf(1.959964)).toBeCloseTo(0.975, 5);
    expect(normalCdf(-2.575829)).toBeCloseTo(0.005, 5);
  });

  it("tells 30 % from 10 % over 100 orders each, and not 10 % from 12 %", () => {
    expect(twoProportionPValue(30, 100, 10, 100)).toBeLessThan(0.01);
    expect(twoProportionPValue(12, 100, 10, 100)).toBeGreaterThan(0.5);
  });

  it("calls equal extremes and empty samples identical", () => {
    expect(twoProportionPValue(0, 10, 0, 30)).toBe(1);
    expect(twoProportionPValue(10, 10, 30, 30)).toBe(1);
    expect(twoProportionPValue(1, 0, 0, 5)).toBe(1);
  });
});

describe("kolmogorovSmirnov", () => {
  it("finds no difference between two samples of one distribution", () => {
    const result = kolmogorovSmirnov(uniforms(1, 200), uniforms(2, 200));
    expect(result.pValue).toBeGreaterThan(0.01);
    expect(result.d).toBeLessThan(0.2);
  });

  it("finds a distribution twice as slow", () => {
    const base = uniforms(3, 60).map((u) => 300 + 200 * u);
    const slow = uniforms(4, 60).map((u) => 2 * (300 + 200 * u));
    const result = kolmogorovSmirnov(base, slow);
    expect(result.d).toBe(1);
    expect(result.pValue).toBeLessThan(1e-6);
  });

  it("measures D exactly on small samples with ties", () => {
    expect(kolmogorovSmirnov([1, 2, 3], [1, 2, 3]).d).toBe(0);
    expect(kolmogorovSmirnov([1, 2], [3, 4]).d).toBe(1);
    expect(kolmogorovSmirnov([], [1]).pValue).toBe(1);
  });
});
