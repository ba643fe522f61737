import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createSeededRandom } from "../../src/domain/ids.ts";
import { DURATION_TEXT_PATTERN } from "../../src/contract/duration.ts";
import {
  DEFAULT_TIMING,
  formatTiming,
  parseTiming,
  sampleDelay,
  TimingInputSchema,
  TimingSchema,
  TimingTextSchema,
  TIMING_TEXT_PATTERN,
} from "../../src/domain/timing.ts";

describe("parseTiming", () => {
  it.each([
    ["2s", { kind: "fixed", ms: 2000 }],
    ["500ms", { kind: "fixed", ms: 500 }],
    ["1.5s", { kind: "fixed", ms: 1500 }],
    ["1m", { kind: "fixed", ms: 60_000 }],
    ["0", { kind: "fixed", ms: 0 }],
    [" 2s ", { kind: "fixed", ms: 2000 }],
    ["1s..3s", { kind: "uniform", minMs: 1000, maxMs: 3000 }],
    ["200ms..1s", { kind: "uniform", minMs: 200, maxMs: 1000 }],
    ["lognormal:2s,0.5", { kind: "lognormal", medianMs: 2000, sigma: 0.5 }],
    ["lognormal:800ms, 1", { kind: "lognormal", medianMs: 800, sigma: 1 }],
  ])("reads %j", (text, timing) => {
    expect(parseTiming(text)).toEqual({ ok: true, timing });
  });

  it.each([
    "",
    "2",
    "2 s",
    "soon",
    "-1s",
    "3s..1s",
    "1s..2s..3s",
    "lognormal:2s",
    "lognormal:2s,-1",
    "lognormal:0s,0.5",
    "lognormal:2s,x",
  ])("refuses %j with a message, without throwing", (text) => {
    const parsed = parseTiming(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error.length).toBeGreaterThan(0);
  });

  it("reads back what formatTiming writes", () => {
    for (const text of ["2s", "1s..3s", "lognormal:2s,0.5"]) {
      const parsed = parseTiming(text);
      if (!parsed.ok) throw new Error(parsed.error);
      expect(parseTiming(formatTiming(parsed.timing))).toEqual(parsed);
    }
  });

  it("has a pattern, for JSON Schema, that matches the texts it reads and refuses the malformed ones", () => {
    const read = [
      "2s",
      "500ms",
      "1.5s",
      "1m",
      "0",
      " 2s ",
      "1s..3s",
      "200ms..1s",
      "lognormal:2s,0.5",
      "lognormal:800ms, 1",
    ];
    for (const text of read) expect(TIMING_TEXT_PATTERN.test(text), text).toBe(true);
    // Out of reach of a pattern: upside-down ranges and a zero median; the parser still refuses them.
    const malformed = ["", "2", "2 s", "2 seconds", "soon", "-1s", "1s..2s..3s", "lognormal:2s", "lognormal:2s,-1"];
    for (const text of malformed) expect(TIMING_TEXT_PATTERN.test(text), text).toBe(false);
    expect(DURATION_TEXT_PATTERN.test("1.5s")).toBe(true);
    expect(DURATION_TEXT_PATTERN.test("1s..3s")).toBe(false);
  });

  it("defaults to a fixed two seconds", () => {
    expect(DEFAULT_TIMING).toEqual({ kind: "fixed", ms: 2000 });
  });
});

describe("sampleDelay", () => {
  it("returns the fixed delay without drawing", () => {
    const random = { next: () => Number.NaN };
    expect(sampleDelay({ kind: "fixed", ms: 1234 }, random)).toBe(1234);
  });

  it("keeps uniform delays within both bounds and reaches both ends", () => {
    const random = createSeededRandom(5);
    const samples = Array.from({ length: 5000 }, () => sampleDelay({ kind: "uniform", minMs: 10, maxMs: 20 }, random));
    expect(Math.min(...samples)).toBe(10);
    expect(Math.max(...samples)).toBe(20);
  });

  it("centres lognormal delays on the median with the given spread", () => {
    const random = createSeededRandom(11);
    const samples = Array.from({ length: 20_000 }, () =>
      sampleDelay({ kind: "lognormal", medianMs: 2000, sigma: 0.5 }, random),
    ).sort((a, b) => a - b);
    const median = samples[samples.length / 2]!;
    expect(Math.abs(median - 2000)).toBeLessThan(60);
    // The 84th percentile of a lognormal sits at median·e^σ ≈ 3297 ms.
    const p84 = samples[Math.floor(samples.length * 0.8413)]!;
    expect(Math.abs(p84 - 2000 * Math.exp(0.5))).toBeLessThan(120);
    expect(samples[0]).toBeGreaterThanOrEqual(0);
  });

  it("is reproducible from the seed", () => {
    const timing = { kind: "lognormal", medianMs: 100, sigma: 1 } as const;
    const a = createSeededRandom(3);
    const b = createSeededRandom(3);
    expect(Array.from({ length: 20 }, () => sampleDelay(timing, a))).toEqual(
      Array.from({ length: 20 }, () => sampleDelay(timing, b)),
    );
  });
});

describe("timing schemas", () => {
  it("validate structured timings", () => {
    expect(TimingSchema.safeParse({ kind: "uniform", minMs: 1, maxMs: 2 }).success).toBe(true);
    expect(TimingSchema.safeParse({ kind: "uniform", minMs: 3, maxMs: 2 }).success).toBe(false);
    expect(TimingSchema.safeParse({ kind: "fixed", ms: -1 }).success).toBe(false);
    expect(TimingSchema.safeParse({ kind: "weibull" }).success).toBe(false);
  });

  it("parse text into a timing and report bad text as an issue", () => {
    expect(TimingTextSchema.parse("1s..3s")).toEqual({ kind: "uniform", minMs: 1000, maxMs: 3000 });
    const bad = TimingTextSchema.safeParse("3s..1s");
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toContain("lower bound");
  });

  it("accept either form as input and export as JSON Schema", () => {
    expect(TimingInputSchema.parse("2s")).toEqual({ kind: "fixed", ms: 2000 });
    expect(TimingInputSchema.parse({ kind: "fixed", ms: 5 })).toEqual({ kind: "fixed", ms: 5 });
    expect(() => z.toJSONSchema(TimingInputSchema, { io: "input" })).not.toThrow();
    expect(() => z.toJSONSchema(TimingSchema)).not.toThrow();
  });
});
