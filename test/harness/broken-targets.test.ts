/**
 * The harness can fail: against the simulator with one defect switched on,
 * the right check fails, the counterexample is shrunk to a few steps, and the
 * printed replay (seed + path) reproduces the same failure on a fresh copy of
 * the broken target.
 */
import { afterAll, describe, expect, test } from "vitest";
import { CHECK_NAMES } from "../../src/harness/checks.ts";
import type { CheckFailureReport } from "../../src/harness/report.ts";
import { runContract } from "../../src/harness/run-contract.ts";
import { type BrokenTarget, DEFECTS, type Defect, startBrokenTarget } from "./broken-targets.ts";

const SEED = 99;
const RUNS = 40;
const MAX_STEPS = 4;

/**
 * The drawn steps of a counterexample: those before the run's settling audit.
 * Shrinking minimises these; the audit's own steps (re-reading the balance
 * while it disagrees) follow from what the target does, not from the draw.
 */
const drawnSteps = (failure: CheckFailureReport) => {
  const settle = failure.steps.findIndex((step) => step.label.startsWith("settle: "));
  return settle === -1 ? failure.steps : failure.steps.slice(0, settle);
};
const open: BrokenTarget[] = [];

afterAll(async () => {
  for (const target of open.splice(0)) await target.close();
});

async function broken(defect: Defect): Promise<BrokenTarget> {
  const target = await startBrokenTarget(defect);
  open.push(target);
  return target;
}

/** `--seed S` and `--path P` as printed in the replay command. */
function replayArguments(replay: string): { seed: number; path: string } {
  const seed = /--seed (\d+)/.exec(replay)?.[1];
  const path = /--path (\S+)/.exec(replay)?.[1];
  if (seed === undefined || path === undefined) throw new Error(`no --seed/--path in: ${replay}`);
  return { seed: Number(seed), path: path.replace(/^"|"$/g, "") };
}

test("every check has a deliberately broken target that only it catches", () => {
  expect(new Set(Object.values(DEFECTS).map((defect) => defect.check))).toEqual(new Set(CHECK_NAMES));
});

describe.each(Object.keys(DEFECTS) as Defect[])("a target with the defect %s", (defect) => {
  const expected = DEFECTS[defect];

  test(`fails ${expected.check}, shrunk to at most ${MAX_STEPS} drawn steps, and the printed replay reproduces it`, async () => {
    const target = await broken(defect);
    const report = await runContract({
      ...target.options,
      runs: RUNS,
      seed: SEED,
      maxFailures: 1,
      properties: [expected.property],
    });

    const failed = report.checks.filter((check) => check.status === "failed").map((check) => check.name);
    expect(failed).toEqual([expected.check]);
    const verdict = report.checks.find((check) => check.name === expected.check);
    const failure = (verdict?.status === "failed" ? verdict.failure : undefined) as CheckFailureReport;
    expect(drawnSteps(failure).length).toBeGreaterThan(0);
    expect(drawnSteps(failure).length, failure.steps.map((step) => step.label).join("\n")).toBeLessThanOrEqual(
      MAX_STEPS,
    );
    expect(failure.reproduced).toBe(true);
    expect(failure.replay).toContain(`--checks ${expected.check} --property ${expected.property}`);
    expect(failure.steps.flatMap((step) => step.curl).every((curl) => curl.startsWith("curl "))).toBe(true);

    // The replay command's seed and path, against a fresh copy of the same broken target.
    const again = await broken(defect);
    const { seed, path } = replayArguments(failure.replay);
    const replayed = await runContract({
      ...again.options,
      seed,
      path,
      checks: [expected.check],
      properties: [expected.property],
    });
    const replayedVerdict = replayed.checks.find((check) => check.name === expected.check);
    expect(replayedVerdict?.status).toBe("failed");
    if (replayedVerdict?.status === "failed") {
      expect(replayedVerdict.failure.steps.map((step) => step.label.replace(/h[0-9a-f]+[0-9a-z]*-/g, ""))).toEqual(
        failure.steps.map((step) => step.label.replace(/h[0-9a-f]+[0-9a-z]*-/g, "")),
      );
    }
  });
});
