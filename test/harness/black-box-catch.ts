/**
 * The shared shape of the black-box catch tests: for each defect, over five
 * seeds, under both profiles where the rule it breaks is the interface's,
 * the default run count catches it by the right check, by name, and the
 * report says whether its replay reproduced it. Split over several test
 * files so the real-clock runs proceed in parallel.
 */
import { afterAll, describe, expect, test } from "vitest";
import type { Strictness } from "../../src/harness/strictness.ts";
import type { CheckFailureReport, ContractReport } from "../../src/harness/report.ts";
import { runContract } from "../../src/harness/run-contract.ts";
import {
  BLACK_BOX_DEFECTS,
  type BlackBoxDefect,
  type BlackBoxTarget,
  startBlackBoxTarget,
} from "./black-box-targets.ts";

const SEEDS = [1, 2, 3, 4, 5];
/**
 * No shrinking: these tests judge which check catches a defect and what its
 * report says, not how small the failing case gets. On a real clock a model
 * run outlasts a short cap anyway, so the shrink only replayed the failure
 * until the cap cut it off, and the cut-off run went on sending requests.
 */
const SHRINK_TIME_MS = 0;

export function failureOf(report: ContractReport, check: string): CheckFailureReport | undefined {
  const verdict = report.checks.find((c) => c.name === check);
  return verdict?.status === "failed" ? verdict.failure : undefined;
}

/** Targets started by a test file, closed after it. */
export function blackBoxTargets(): (defect: BlackBoxDefect, seed: number) => Promise<BlackBoxTarget> {
  const open: BlackBoxTarget[] = [];
  afterAll(async () => {
    for (const target of open.splice(0)) await target.close();
  });
  return async (defect, seed) => {
    const started = await startBlackBoxTarget(defect, seed);
    open.push(started);
    return started;
  };
}

/**
 * Each defect over five seeds, under `strict` — and, where the rule it
 * breaks is the interface's, under `interface` too, the two runs of a seed
 * side by side (their waits overlap).
 */
export function describeCaughtOverSeeds(defects: readonly (keyof typeof BLACK_BOX_DEFECTS)[]): void {
  const target = blackBoxTargets();
  describe.each(defects)("a black-box target with the defect %s", (defect) => {
    const expected = BLACK_BOX_DEFECTS[defect];
    const profiles: readonly Strictness[] = expected.profiles;
    test(`fails ${expected.check} over five seeds under ${profiles.join(" and ")}, each report saying whether it reproduced`, async () => {
      for (const seed of SEEDS) {
        const reports = await Promise.all(
          profiles.map(async (profile) => {
            const broken = await target(defect, seed);
            const report = await runContract({
              ...broken.options,
              seed,
              profile,
              maxFailures: 1,
              properties: [expected.property],
              shrinkTimeMs: SHRINK_TIME_MS,
            });
            await broken.close();
            return report;
          }),
        );
        for (const [index, report] of reports.entries()) {
          const context = `seed ${seed}, --profile ${profiles[index]}`;
          const failed = report.checks.filter((c) => c.status === "failed").map((c) => c.name);
          const also =
            "underInterfaceAlso" in expected && profiles[index] === "interface"
              ? expected.underInterfaceAlso
              : undefined;
          const caughtBy = also !== undefined && failed[0] === also ? also : expected.check;
          expect(failed, context).toEqual([caughtBy]);
          const failure = failureOf(report, caughtBy) as CheckFailureReport;
          expect(failure.observed, context).toBe(!failure.reproduced);
          expect(failure.steps.length, context).toBeGreaterThan(0);
          expect(failure.steps.flatMap((step) => step.curl).length, context).toBeGreaterThan(0);
        }
      }
    }, 300_000);
  });
}
