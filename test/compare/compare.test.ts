/**
 * `compare` end to end: real simulators on real ports as targets, the
 * reference simulator started by the comparison itself. The simulator
 * compared with itself must show no divergence and score 100 %.
 */
import { afterEach, describe, expect, test, vi } from "vitest";
import { main } from "../../src/cli/main.ts";
import { runCompare } from "../../src/compare/run-compare.ts";
import { formatCompareReport } from "../../src/compare/console-report.ts";
import { CompareTargets, REFERENCE_SETTINGS, TARGET_TOKEN } from "../support/compare-targets.ts";

const targets = new CompareTargets();
afterEach(() => targets.close());

describe("the simulator compared with itself", () => {
  test.each([1, 2, 3])("seed %i: no divergence, fidelity 100 percent on every operation", async (seed) => {
    const target = await targets.simulator({ seed: seed + 1000 });
    const report = await runCompare({
      target,
      token: TARGET_TOKEN,
      seed,
      runs: 8,
      settleMs: 10_000,
      reference: REFERENCE_SETTINGS,
    });
    const divergences = report.results.filter((result) => !result.agrees);
    expect(divergences, formatCompareReport(report)).toEqual([]);
    expect(report.scores.overall).toBe(1);
    for (const operation of ["send", "replay", "lookup", "balance"] as const) {
      expect(report.scores[operation]).toBe(1);
    }
    // The comparison did observe something: orders reached finals and were timed on both sides.
    expect(report.targetSide.finalTimesMs.length).toBeGreaterThan(10);
    expect(report.simulator.finalTimesMs.length).toBe(report.targetSide.finalTimesMs.length);
    expect(report.targetSide.unsettled).toBe(0);
    expect(formatCompareReport(report)).toContain("no divergence");
  });
});

describe("the compare command's usage errors", () => {
  test.each([
    [[]],
    [["--target", "http://127.0.0.1:9", "--token", "t", "--runs", "zero"]],
    [["--target", "http://127.0.0.1:9", "--token", "t", "--fail-under", "150"]],
    [["--target", "not a url", "--token", "t"]],
    [["--target", "http://127.0.0.1:9", "--token", "t", "--bogus"]],
  ])("%j exits 2", async (args) => {
    const quiet = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      expect(await main(["compare", ...args])).toBe(2);
      expect(quiet).toHaveBeenCalled();
    } finally {
      quiet.mockRestore();
    }
  });
});
