/**
 * Promises judged over time: a black-box target that turns some Failed
 * orders into Success (with a second webhook) once its API has heard
 * nothing for six seconds — after the run's last request, however many
 * lanes the run has: a run's longest silence is a webhook wait of a second,
 * which even a loaded machine does not stretch that far — passes every
 * model run's own audit, and is caught by the late audit at the end of the
 * run: `status_monotonic`, at the default run count, over five seeds, under
 * both judging rules. The late audit here waits twice that silence (the
 * default 5 s, when a loaded run's last requests come seconds after its
 * newest order went final, can leave less). With the late audit off
 * (`--late-audit 0`) every seed misses it. The correct target passes the
 * late audit over the same seeds.
 */
import { describe, expect, test } from "vitest";
import type { Strictness } from "../../src/harness/strictness.ts";
import type { ContractReport } from "../../src/harness/report.ts";
import { runContract } from "../../src/harness/run-contract.ts";
import { type BlackBoxDefect, LATE_FLIP_QUIET_MS, startBlackBoxTarget } from "./black-box-targets.ts";

const SEEDS = [1, 2, 3, 4, 5];

async function runModel(
  defect: BlackBoxDefect,
  seed: number,
  profile: Strictness,
  lateAuditMs?: number,
): Promise<ContractReport> {
  const target = await startBlackBoxTarget(defect, seed);
  try {
    return await runContract({
      ...target.options,
      seed,
      profile,
      ...(lateAuditMs === undefined ? {} : { lateAuditMs }),
      properties: ["model"],
      maxFailures: 1,
      shrinkTimeMs: 1500,
    });
  } finally {
    await target.close();
  }
}

const failedChecks = (report: ContractReport) => [
  ...report.checks.flatMap((check) => (check.status === "failed" ? [`${check.name}: ${check.failure.message}`] : [])),
  ...report.errors,
];

describe.each<Strictness>(["strict", "interface"])("under --profile %s", (profile) => {
  test("a final status that flips once the run has gone quiet fails status_monotonic at the late audit, over five seeds", async () => {
    const reports = await Promise.all(
      SEEDS.map((seed) => runModel("late_flip", seed, profile, 2 * LATE_FLIP_QUIET_MS)),
    );
    for (const [index, report] of reports.entries()) {
      expect(failedChecks(report), `seed ${SEEDS[index]}`).toEqual([expect.stringMatching(/^status_monotonic: /)]);
      // Caught by the late audit, not by a model run's own steps.
      const caught = report.checks.find((check) => check.name === "status_monotonic");
      expect(caught?.status === "failed" && caught.failure.replay, `seed ${SEEDS[index]}`).toMatch(/late audit/);
    }
  }, 240_000);

  test("the correct target passes, the late audit included, over five seeds", async () => {
    const reports = await Promise.all(SEEDS.map((seed) => runModel("none", seed, profile)));
    for (const [index, report] of reports.entries()) {
      expect(failedChecks(report), `seed ${SEEDS[index]}`).toEqual([]);
      expect(report.timings["late audit"], `seed ${SEEDS[index]}`).toBeGreaterThan(0);
    }
  }, 240_000);
});

test("with the late audit off (--late-audit 0), every seed misses the late flip", async () => {
  const reports = await Promise.all(SEEDS.map((seed) => runModel("late_flip", seed, "strict", 0)));
  for (const [index, report] of reports.entries()) expect(failedChecks(report), `seed ${SEEDS[index]}`).toEqual([]);
}, 240_000);
