/**
 * A timing stated by quantiles: the three ways to write it (text, the config
 * file's object, structured), the mistakes refused with a reason, and draws
 * that reproduce every stated quantile and never pass max.
 */
import { describe, expect, test } from "vitest";
import { createSeededRandom } from "../../src/domain/ids.ts";
import { formatTiming, parseTiming, sampleDelay, type Timing } from "../../src/domain/timing.ts";
import { quantile } from "../../src/compare/statistics.ts";
import { parseSimulatorConfig } from "../../src/simulator/config.ts";
import { compileSpecSchema } from "../support/json-schema-validator.ts";

const STATED = {
  kind: "quantiles",
  points: [
    { q: 0, ms: 0 },
    { q: 0.5, ms: 300 },
    { q: 0.95, ms: 1200 },
    { q: 1, ms: 3000 },
  ],
} as const satisfies Timing;

describe("writing a quantile timing", () => {
  test.each([
    ["text", "quantiles:p50=300ms,p95=1.2s,max=3s"],
    ["the config object", { quantiles: { p50: "300ms", p95: "1.2s", max: "3s" } }],
    ["the config object in ms", { quantiles: { p50: 300, p95: 1200, max: 3000 } }],
    ["structured", STATED],
  ])("%s", async (_form, timing) => {
    const parsed = parseSimulatorConfig({ timing });
    expect(parsed).toEqual({ ok: true, config: { timing: STATED } });
    const { validate } = await compileSpecSchema("spec/config.schema.json");
    expect(validate({ timing }), JSON.stringify(validate.errors)).toBe(true);
  });

  test("formatTiming writes text that parseTiming reads back", () => {
    expect(formatTiming(STATED)).toBe("quantiles:min=0ms,p50=300ms,p95=1200ms,max=3000ms");
    expect(parseTiming(formatTiming(STATED))).toEqual({ ok: true, timing: STATED });
  });

  test.each([
    ["quantiles:p50=300ms", /need max/],
    ["quantiles:p50=3s,max=1s", /max is shorter than p50/],
    ["quantiles:p50=300ms,p50=400ms,max=1s", /p50 is stated twice/],
    ["quantiles:p100=1s,max=2s", /not a quantile/],
    ["quantiles:p50=soon,max=1s", /not a duration/],
  ])("%s is refused", (text, reason) => {
    const parsed = parseTiming(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatch(reason);
  });

  test("a config object with a mistake is refused", () => {
    expect(parseSimulatorConfig({ timing: { quantiles: { p50: "3s", max: "1s" } } }).ok).toBe(false);
    expect(parseSimulatorConfig({ timing: { quantiles: { p50: "300ms" } } }).ok).toBe(false);
  });
});

test("draws reproduce the stated quantiles and never pass max", () => {
  const random = createSeededRandom(5);
  const draws = Array.from({ length: 20_000 }, () => sampleDelay(STATED, random));
  expect(Math.abs(quantile(draws, 0.5) - 300) / 300).toBeLessThan(0.03);
  expect(Math.abs(quantile(draws, 0.95) - 1200) / 1200).toBeLessThan(0.03);
  // Linear between p50 and p95: p72.5 lies halfway, at 750 ms.
  expect(Math.abs(quantile(draws, 0.725) - 750) / 750).toBeLessThan(0.03);
  expect(Math.max(...draws)).toBeLessThanOrEqual(3000);
  expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
  expect(draws.every(Number.isInteger)).toBe(true);
});
