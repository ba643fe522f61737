/**
 * Against black-box targets (real clock, fast random finals, some failures,
 * no admin powers): each planted defect is caught by the right check, by
 * name, within the default run count, over five seeds — and every failure
 * report says whether its replay reproduced it. The correct target passes
 * with every status class covered.
 */
import { afterAll, describe, expect, test } from "vitest";
import type { CheckFailureReport, ContractReport } from "../../src/harness/report.ts";
import { runContract } from "../../src/harness/run-contract.ts";
import {
  BLACK_BOX_DEFECTS,
  type BlackBoxDefect,
  type BlackBoxTarget,
  startBlackBoxTarget,
} from "./black-box-targets.ts";

const SEEDS = [1, 2, 3, 4, 5];
const SHRINK_TIME_MS = 1500;
const open: BlackBoxTarget[] = [];

afterAll(async () => {
  for (const target of open.splice(0)) await target.close();
});

async function target(defect: BlackBoxDefect, seed: number): Promise<BlackBoxTarget> {
  const started = await startBlackBoxTarget(defect, seed);
  open.push(started);
  return started;
}

function failureOf(report: ContractReport, check: string): CheckFailureReport | undefined {
  const verdict = report.checks.find((c) => c.name === check);
  return verdict?.status === "failed" ? verdict.failure : undefined;
}

describe.each(Object.keys(BLACK_BOX_DEFECTS) as (keyof typeof BLACK_BOX_DEFECTS)[])(
  "a black-box target with the defect %s",
  (defect) => {
    const expected = BLACK_BOX_DEFECTS[defect];
    test(`fails ${expected.check} over five seeds, each report saying whether it reproduced`, async () => {
      for (const seed of SEEDS) {
        const broken = await target(defect, seed);
        const report = await runContract({
          ...broken.options,
          seed,
          maxFailures: 1,
          properties: [expected.property],
          shrinkTimeMs: SHRINK_TIME_MS,
        });
        const failed = report.checks.filter((c) => c.status === "failed").map((c) => c.name);
        expect(failed, `seed ${seed}`).toEqual([expected.check]);
        const failure = failureOf(report, expected.check) as CheckFailureReport;
        expect(failure.observed).toBe(!failure.reproduced);
        expect(failure.steps.length).toBeGreaterThan(0);
        expect(failure.steps.flatMap((step) => step.curl).length).toBeGreaterThan(0);
        await broken.close();
      }
    }, 180_000);
  },
);

test("a failure that does not replay is reported as observed, with its steps and curl lines, and is not shrunk", async () => {
  const flaky = await target("server_error_once", 1);
  const report = await runContract({ ...flaky.options, seed: 1, maxFailures: 1, properties: ["model"] });
  const failure = failureOf(report, "never_server_error") as CheckFailureReport;
  expect(failure.reproduced).toBe(false);
  expect(failure.observed).toBe(true);
  expect(failure.shrinkMs).toBe(0);
  expect(failure.steps.flatMap((step) => step.curl).some((curl) => curl.includes("POST"))).toBe(true);
}, 60_000);
