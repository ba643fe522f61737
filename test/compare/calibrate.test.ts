/**
 * `compare --calibrate`: the config written from a target's observed
 * behaviour recovers its timing quantiles (p50, p90, p95) within 15 % and
 * its failure rate within the observed rate's interval, is accepted by `serve --config`'s loader, and a
 * simulator started from it compares with the target without a divergence.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { writeCalibration } from "../../src/compare/calibrate.ts";
import { runCompare } from "../../src/compare/run-compare.ts";
import { wilsonInterval } from "../../src/compare/statistics.ts";
import { parseDuration } from "../../src/contract/duration.ts";
import { loadSimulatorConfig } from "../../src/simulator/config.ts";
import { FAILED_STATUS } from "../../src/contract/status-codes.ts";
import { CompareTargets, TARGET_TOKEN } from "../support/compare-targets.ts";

const targets = new CompareTargets();
afterEach(() => targets.close());
let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "calibrate-"));
});
afterAll(() => rm(folder, { recursive: true, force: true }));

/** The target's true timing: median 1 s, p95 = 1000 · e^(1.645 · 0.4) ≈ 1.93 s (long enough that request latency is a small share). */
const MEDIAN_MS = 1000;
const SIGMA = 0.4;
const FAILURE_RATE = 0.25;

test("the fitted config recovers the target's quantiles and failure rate, and then agrees with it", async () => {
  const target = await targets.simulator({
    seed: 3,
    timing: `lognormal:${MEDIAN_MS}ms,${SIGMA}`,
    failureRate: FAILURE_RATE,
  });
  const first = await runCompare({ target, token: TARGET_TOKEN, seed: 5, runs: 20, settleMs: 10_000 });
  const file = join(folder, "calibrated.json");
  await writeCalibration(file, { target: first.targetSide });

  const written = JSON.parse(await readFile(file, "utf8")) as {
    timing: { quantiles: Record<string, string> };
    outcomes: { status: number; share: number }[];
  };
  expect(Object.keys(written.timing.quantiles)).toEqual(["min", "p10", "p50", "p90", "p95", "max"]);
  // The true quantiles of the lognormal: median · e^(z_q · sigma). p10 is written but not judged here: the
  // measurement floor (request latency, half a poll interval) is additive and weighs most on the shortest
  // times, the more so on a loaded machine; the second comparison below judges the whole distribution.
  for (const [key, z] of [
    ["p50", 0],
    ["p90", 1.2815516],
    ["p95", 1.6448536],
  ] as const) {
    const truth = MEDIAN_MS * Math.exp(z * SIGMA);
    const fitted = parseDuration(written.timing.quantiles[key] ?? "");
    if (!fitted.ok) throw new Error(`${key} is not a duration: ${written.timing.quantiles[key]}`);
    expect(Math.abs(fitted.ms - truth) / truth, key).toBeLessThan(0.15);
  }
  const finals = first.targetSide.finalTimesMs.length;
  expect(written.outcomes.map((outcome) => outcome.status)).toEqual([FAILED_STATUS]);
  const interval = wilsonInterval(Math.round((written.outcomes[0]?.share ?? 0) * finals), finals);
  expect(FAILURE_RATE).toBeGreaterThanOrEqual(interval.low);
  expect(FAILURE_RATE).toBeLessThanOrEqual(interval.high);

  const calibrated = await loadSimulatorConfig(file);
  expect(calibrated.timing).toMatchObject({ kind: "quantiles" });
  const second = await runCompare({
    target,
    token: TARGET_TOKEN,
    seed: 6,
    runs: 20,
    settleMs: 10_000,
    reference: calibrated,
  });
  expect(second.results.filter((result) => !result.agrees).map((result) => result.rule)).toEqual([]);
});
