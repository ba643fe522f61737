/**
 * The 24-hour promise, in time: a run saved with --save-run is judged again
 * with --recheck. Over five seeds, a target that forgets idempotency keys
 * 10 s after their first use passes the run and fails the recheck 15 s
 * later on `idempotent_replay`; the correct target passes both. The one
 * test here that waits on the wall clock: the defect is in time.
 */
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import type { ContractOptions } from "../../src/harness/contract-options.ts";
import type { ContractReport } from "../../src/harness/report.ts";
import { runContract } from "../../src/harness/run-contract.ts";
import { SavedRunSchema } from "../../src/harness/audit/promised-orders.ts";
import { type BlackBoxTarget, startBlackBoxTarget } from "./black-box-targets.ts";

const SEEDS = [1, 2, 3, 4, 5];

const failed = (report: ContractReport) => [
  ...report.checks.flatMap((check) => (check.status === "failed" ? [`${check.name}: ${check.failure.message}`] : [])),
  ...report.errors,
];

interface Pair {
  readonly seed: number;
  readonly forgetful: BlackBoxTarget;
  readonly correct: BlackBoxTarget;
}

test("over five seeds, a target that forgets keys after 10 s passes the run and fails --recheck 15 s later; the correct one passes both", async () => {
  const dir = await mkdtemp(join(tmpdir(), "recheck-"));
  const pairs: Pair[] = await Promise.all(
    SEEDS.map(async (seed) => ({
      seed,
      forgetful: await startBlackBoxTarget("short_key_retention", seed),
      correct: await startBlackBoxTarget("none", seed),
    })),
  );
  const file = (name: string, seed: number) => join(dir, `${name}-${seed}.json`);
  try {
    // Short runs of short sequences, without the late audit: every key is replayed within the 10 s it is kept.
    const run = (options: ContractOptions, seed: number, saveRun: string) =>
      runContract({ ...options, seed, runs: 5, maxCommands: 10, properties: ["model"], lateAuditMs: 0, saveRun });
    const runs = await Promise.all(
      pairs.map(async ({ seed, forgetful, correct }) => ({
        forgetful: await run(forgetful.options, seed, file("forgetful", seed)),
        correct: await run(correct.options, seed, file("correct", seed)),
      })),
    );
    for (const [index, { forgetful, correct }] of runs.entries()) {
      expect(failed(forgetful), `seed ${SEEDS[index]}`).toEqual([]);
      expect(failed(correct), `seed ${SEEDS[index]}`).toEqual([]);
    }
    for (const { seed, forgetful } of pairs) {
      const saved = SavedRunSchema.parse(JSON.parse(await readFile(file("forgetful", seed), "utf8")));
      expect(saved.orders.length, `seed ${seed}`).toBeGreaterThan(0);
      expect(JSON.stringify(saved)).not.toContain(forgetful.options.token as string);
    }

    await new Promise((resolve) => setTimeout(resolve, 15_000));

    const recheck = (options: ContractOptions, seed: number, saved: string) =>
      runContract({ ...options, seed, recheck: saved });
    const rechecks = await Promise.all(
      pairs.map(async ({ seed, forgetful, correct }) => ({
        forgetful: await recheck(forgetful.options, seed, file("forgetful", seed)),
        correct: await recheck(correct.options, seed, file("correct", seed)),
      })),
    );
    for (const [index, { forgetful, correct }] of rechecks.entries()) {
      const context = `seed ${SEEDS[index]}`;
      expect(
        failed(forgetful).map((line) => line.split(":")[0]),
        context,
      ).toEqual(["idempotent_replay"]);
      expect(failed(correct), context).toEqual([]);
      const judged = correct.checks.filter((check) => check.status === "passed").map((check) => check.name);
      expect(judged, context).toEqual(expect.arrayContaining(["idempotent_replay", "status_monotonic"]));
    }
  } finally {
    for (const { forgetful, correct } of pairs) {
      await forgetful.close();
      await correct.close();
    }
  }
}, 240_000);
