/**
 * `compare --calibrate` against a target with two failed outcomes, 10 %
 * Failed and 5 % Timeout: the config writes each outcome's own share of the
 * finals the target reached (not one failure rate), `serve --config`'s
 * loader accepts it, and a simulator started from it compares with the
 * same target without a divergence, over three seeds. Each comparison sends
 * 40 runs (about 150 orders): fewer would often see no Timeout at all. The
 * same calibrated simulator against a target four times as slow still
 * diverges on timing: the tolerance for how late the poller looked hides
 * no real difference.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { writeCalibration } from "../../src/compare/calibrate.ts";
import { runCompare } from "../../src/compare/run-compare.ts";
import { FAILED_STATUS, TIMEOUT_STATUS } from "../../src/contract/status-codes.ts";
import { loadSimulatorConfig } from "../../src/simulator/config.ts";
import { CompareTargets, TARGET_TOKEN } from "../support/compare-targets.ts";

const targets = new CompareTargets();
afterEach(() => targets.close());
let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "calibrate-mix-"));
});
afterAll(() => rm(folder, { recursive: true, force: true }));

/** A target with two failed outcomes: 10 % Failed and 5 % Timeout, the rest Success. */
const MIX = [
  { status: FAILED_STATUS, share: 0.1 },
  { status: TIMEOUT_STATUS, share: 0.05 },
] as const;
/** Enough orders that a 5 % outcome is seen (150 orders miss it with probability 0.95^150 ≈ 0.05 %). */
const MIX_RUNS = 40;

test.each([11, 12, 13])(
  "seed %i: a mix of Failed and Timeout is fitted outcome by outcome, and then agrees",
  async (seed) => {
    const target = await targets.simulator({ seed, timing: "lognormal:150ms,0.3", outcomes: MIX });
    const first = await runCompare({ target, token: TARGET_TOKEN, seed, runs: MIX_RUNS, settleMs: 10_000 });
    const file = join(folder, `mix-${seed}.json`);
    const { config } = await writeCalibration(file, { target: first.targetSide });

    // Each outcome is its own share of what the target was seen to do, not one failure rate split in two.
    const { finals } = first.targetSide;
    const seen = Object.values(finals).reduce((sum, count) => sum + count, 0);
    expect(seen).toBeGreaterThanOrEqual(120);
    const share = (name: string) => Math.round(((finals[name] ?? 0) / seen) * 1000) / 1000;
    // An outcome may also carry its own timing, when its sample happens to look apart from the rest:
    // that is a fit, not a mistake, and the second comparison below judges it.
    const outcomes = [...(config.outcomes as { status: number; share: number }[])]
      .map(({ status, share }) => ({ status, share }))
      .sort((a, b) => a.status - b.status);
    expect(outcomes).toEqual([
      { status: FAILED_STATUS, share: share("Failed") },
      { status: TIMEOUT_STATUS, share: share("Timeout") },
    ]);

    const second = await runCompare({
      target,
      token: TARGET_TOKEN,
      seed: seed + 100,
      runs: MIX_RUNS,
      settleMs: 10_000,
      reference: await loadSimulatorConfig(file),
    });
    expect(second.targetSide.finals).toHaveProperty("Timeout");
    expect(second.simulator.finals).toHaveProperty("Timeout");
    expect(second.results.filter((result) => !result.agrees).map((result) => result.rule)).toEqual([]);
  },
  // Seconds on an idle machine; the headroom is for a loaded one.
  240_000,
);

test("a target four times as slow as the calibrated simulator still diverges on timing", async () => {
  const seed = 11;
  const calibratedOn = await targets.simulator({ seed, timing: "lognormal:150ms,0.3" });
  const first = await runCompare({ target: calibratedOn, token: TARGET_TOKEN, seed, runs: 8, settleMs: 10_000 });
  const file = join(folder, "four-times-slower.json");
  await writeCalibration(file, { target: first.targetSide });

  const slower = await targets.simulator({ seed, timing: "lognormal:600ms,0.3" });
  const second = await runCompare({
    target: slower,
    token: TARGET_TOKEN,
    seed: seed + 100,
    runs: 8,
    settleMs: 10_000,
    reference: await loadSimulatorConfig(file),
  });
  const timing = second.results.find((result) => result.rule === "pending → final time");
  expect(timing?.agrees, JSON.stringify(timing)).toBe(false);
  expect(timing?.test).toMatch(/observation error \(p50 \d+ ms, p95 \d+ ms\)/);
}, 60_000);
