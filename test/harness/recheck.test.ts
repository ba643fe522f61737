/**
 * The 24-hour promise, in time: a run saved with --save-run is judged again
 * with --recheck. A target that forgets idempotency keys 10 s after their
 * first use passes the run and fails the recheck 15 s later on
 * `idempotent_replay`; the correct target passes both. The one test here
 * that waits on the wall clock: the defect is in time.
 */
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import type { ContractOptions } from "../../src/harness/contract-options.ts";
import type { ContractReport } from "../../src/harness/report.ts";
import { runContract } from "../../src/harness/run-contract.ts";
import { SavedRunSchema } from "../../src/harness/saved-run.ts";
import { startBlackBoxTarget } from "./black-box-targets.ts";

const failed = (report: ContractReport) => [
  ...report.checks.flatMap((check) => (check.status === "failed" ? [`${check.name}: ${check.failure.message}`] : [])),
  ...report.errors,
];

test("a target that forgets keys after 10 s passes the run and fails --recheck 15 s later; the correct one passes both", async () => {
  const dir = await mkdtemp(join(tmpdir(), "recheck-"));
  const forgetful = await startBlackBoxTarget("short_key_retention", 7);
  const correct = await startBlackBoxTarget("none", 7);
  try {
    // A short run with the late audit right after it: every key is replayed within the 10 s it is kept.
    const run = (options: ContractOptions, file: string) =>
      runContract({ ...options, seed: 7, runs: 5, properties: ["model"], lateAuditMs: 0, saveRun: file });
    const [forgetfulRun, correctRun] = await Promise.all([
      run(forgetful.options, join(dir, "forgetful.json")),
      run(correct.options, join(dir, "correct.json")),
    ]);
    expect(failed(forgetfulRun)).toEqual([]);
    expect(failed(correctRun)).toEqual([]);
    const saved = SavedRunSchema.parse(JSON.parse(await readFile(join(dir, "forgetful.json"), "utf8")));
    expect(saved.orders.length).toBeGreaterThan(0);
    expect(JSON.stringify(saved)).not.toContain(forgetful.options.token as string);

    await new Promise((resolve) => setTimeout(resolve, 15_000));

    const recheck = (options: ContractOptions, file: string) => runContract({ ...options, seed: 7, recheck: file });
    const [forgetfulRecheck, correctRecheck] = await Promise.all([
      recheck(forgetful.options, join(dir, "forgetful.json")),
      recheck(correct.options, join(dir, "correct.json")),
    ]);
    expect(failed(forgetfulRecheck).map((line) => line.split(":")[0])).toEqual(["idempotent_replay"]);
    expect(failed(correctRecheck)).toEqual([]);
    const judged = correctRecheck.checks.filter((check) => check.status === "passed").map((check) => check.name);
    expect(judged).toEqual(expect.arrayContaining(["idempotent_replay", "status_monotonic"]));
  } finally {
    await forgetful.close();
    await correct.close();
  }
}, 180_000);
