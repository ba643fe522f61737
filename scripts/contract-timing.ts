/**
 * How long `contract` takes to a verdict against a simulator on a real
 * clock, reached only over HTTP (no admin powers), as a CI pipeline meets a
 * deployment: a default run against finals after 2 s (`serve`'s default),
 * `--runs 20` against `--runs 100`, the time the late audit adds (a default
 * run with `--late-audit 0`), and a target whose finals take 5–10 s. Prints
 * the figures, each with the machine's load average while it ran (a busy
 * machine stretches them); asserts nothing (speed is measured, never a
 * test's verdict).
 *
 *   npx tsx scripts/contract-timing.ts [--seed N] [--only NAME]
 */
import { randomBytes } from "node:crypto";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import type { ContractOptions } from "../src/harness/contract-options.ts";
import { runContract } from "../src/harness/run-contract.ts";
import type { Timing } from "../src/domain/timing.ts";
import { createSimulator } from "../src/simulator/create-simulator.ts";

interface Measure {
  readonly name: string;
  readonly timing: Timing;
  readonly options: Partial<ContractOptions>;
}

const SERVE_DEFAULT: Timing = { kind: "fixed", ms: 2000 };
const MEASURES: readonly Measure[] = [
  { name: "default run, finals after 2 s", timing: SERVE_DEFAULT, options: {} },
  { name: "default run, --late-audit 0", timing: SERVE_DEFAULT, options: { lateAuditMs: 0 } },
  { name: "--runs 20", timing: SERVE_DEFAULT, options: { runs: 20 } },
  { name: "--runs 100", timing: SERVE_DEFAULT, options: { runs: 100 } },
  { name: "default run, finals after 5-10 s", timing: { kind: "uniform", minMs: 5000, maxMs: 10_000 }, options: {} },
];

/** One contract run against a fresh simulator with `timing`, to its verdict. */
async function timeRun(measure: Measure, seed: number): Promise<{ wallMs: number; ok: boolean; failed: string[] }> {
  const token = `timing-${randomBytes(6).toString("hex")}`;
  const sim = await createSimulator({
    clock: "real",
    seed,
    timing: measure.timing,
    demo: false,
    customers: [{ id: "timing", token, balance: 10_000_000 }],
  });
  const url = await sim.listen(0, "127.0.0.1");
  try {
    const started = Date.now();
    const report = await runContract({ target: url, token, seed, ...measure.options });
    const failed = report.checks.flatMap((check) => (check.status === "failed" ? [check.name] : []));
    return { wallMs: Date.now() - started, ok: report.ok, failed: [...failed, ...report.errors] };
  } finally {
    await sim.close();
  }
}

const { values } = parseArgs({ options: { seed: { type: "string" }, only: { type: "string" } } });
const seed = Number(values.seed ?? 1);
for (const measure of MEASURES.filter((m) => values.only === undefined || m.name.includes(values.only as string))) {
  const result = await timeRun(measure, seed);
  const verdict = result.ok ? "passed" : `FAILED ${result.failed.join(", ")}`;
  const load = `load ${(loadavg()[0] ?? 0).toFixed(1)}`;
  console.log(`${measure.name.padEnd(36)} ${(result.wallMs / 1000).toFixed(1).padStart(6)} s  ${load}  ${verdict}`);
}
