/**
 * Promises judged over time: a black-box target that turns some Failed
 * orders into Success about a second after they went final (with a second
 * webhook) passes every model run's own audit, and is caught by the late
 * audit at the end of the run — `status_monotonic`, at the default run
 * count, over five seeds, under both judging rules. With the late audit
 * off (`--late-audit 0`) some seeds miss it: the model runs' own audits
 * see a flip only when a later step happens to look in time. The correct
 * target passes the late audit over the same seeds.
 */
import { describe, expect, test } from "vitest";
import type { Strictness } from "../../src/harness/strictness.ts";
import type { ContractReport } from "../../src/harness/report.ts";
import { runContract } from "../../src/harness/run-contract.ts";
import { type BlackBoxDefect, startBlackBoxTarget } from "./black-box-targets.ts";

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
  test("a final status that flips a second later fails status_monotonic at the late audit, over five seeds", async () => {
    const reports = await Promise.all(SEEDS.map((seed) => runModel("late_flip", seed, profile)));
    for (const [index, report] of reports.entries()) {
      const failed = failedChecks(report);
      expect(failed, `seed ${SEEDS[index]}`).toHaveLength(1);
      // Under interface a run that re-reads the flipped order in time may see its consequence first: a
      // Success whose money came back (the flip leaves the refund behind).
      expect(failed[0], `seed ${SEEDS[index]}`).toMatch(
        profile === "strict" ? /^status_monotonic: / : /^(status_monotonic|no_double_charge): /,
      );
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

test("with the late audit off (--late-audit 0), the five-seed catch of the late flip fails: some seeds miss it", async () => {
  const reports = await Promise.all(SEEDS.map((seed) => runModel("late_flip", seed, "strict", 0)));
  // A run may still look the flipped order up after it flipped; without the late audit, that is luck.
  const missed = reports.filter((report) => failedChecks(report).length === 0);
  expect(missed.length, reports.map((report) => failedChecks(report).join("; ")).join(" | ")).toBeGreaterThan(0);
}, 240_000);
