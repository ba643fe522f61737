/**
 * No false alarms, and honest coverage: against the correct simulator
 * (in-process, virtual clock, admin powers) and against a correct black-box
 * deployment (real clock, random finals with failures, no admin powers),
 * every check passes — none merely "not exercised" — over five seeds, with
 * both success- and failed-class finals judged by every check about them.
 */
import { afterAll, expect, test } from "vitest";
import { STATUS_CLASS_COVERAGE } from "../../src/harness/coverage.ts";
import type { ContractReport } from "../../src/harness/report.ts";
import { runContract } from "../../src/harness/run-contract.ts";
import { type BlackBoxTarget, startBlackBoxTarget } from "./black-box-targets.ts";

const SEEDS = [11, 12, 13, 14, 15];
const open: BlackBoxTarget[] = [];

afterAll(async () => {
  for (const target of open.splice(0)) await target.close();
});

function expectEveryCheckPassed(report: ContractReport, skippable: readonly string[]): void {
  expect(report.errors).toEqual([]);
  for (const check of report.checks) {
    if (skippable.includes(check.name)) continue;
    expect(check.status, `${check.name} (seed ${report.seed}): ${JSON.stringify(check)}`).toBe("passed");
    if (check.status !== "passed" || STATUS_CLASS_COVERAGE[check.name] === undefined) continue;
    expect(check.coverage.missing, `${check.name}: ${check.coverage.summary}`).toEqual([]);
  }
  expect(report.ok).toBe(true);
}

test("the in-process simulator passes every check with every status class covered, over five seeds", async () => {
  for (const seed of SEEDS) {
    const report = await runContract({ seed, runs: 30, requireCoverage: true });
    expectEveryCheckPassed(report, []);
  }
}, 240_000);

test("a correct black-box deployment passes every check with every status class covered, over five seeds", async () => {
  // Each seed on its own deployment, side by side: a run against a real clock mostly waits.
  const reports = await Promise.all(
    SEEDS.map(async (seed) => {
      const target = await startBlackBoxTarget("none", seed);
      open.push(target);
      const report = await runContract({ ...target.options, seed, runs: 10, requireCoverage: true });
      await target.close();
      return report;
    }),
  );
  // Without admin powers or a second token there is no second customer to isolate from.
  for (const report of reports) expectEveryCheckPassed(report, ["customer_isolation"]);
}, 240_000);

test("without --budget, a run against one account without admin powers never drains it into 402s it caused", async () => {
  // KES 5,000 is one order at the default largest amount: the harness must budget within what the wallet holds.
  const target = await startBlackBoxTarget("none", 21, 5_000);
  open.push(target);
  const report = await runContract({ ...target.options, seed: 21, runs: 8 });
  expect(report.checks.filter((check) => check.status === "failed")).toEqual([]);
  expect(report.spent).toBeLessThanOrEqual(5_000);
  await target.close();
}, 240_000);
