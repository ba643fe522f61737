/**
 * How long a default `contract --profile interface` run takes against the
 * foreign provider (test/harness/foreign/), as a CI pipeline would start it:
 * the CLI in a child process, the provider's profile, an expiring token from
 * its token command, a second customer, webhooks to the harness. Prints the
 * figures and the run's own report (with `--verbose`: where the time went);
 * asserts nothing (speed is measured, never a test's verdict).
 *
 *   npx tsx scripts/time-foreign-run.ts [--seed N] [--defect NAME]
 *
 * Without `--defect` it times the correct provider; with one it times the run
 * to its verdict, shrinking included.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { freePort } from "../src/harness/child-process.ts";
import type { ForeignDefect } from "../test/harness/foreign/defects.ts";
import { startForeignTarget } from "../test/harness/foreign/foreign-target.ts";
import { ROOT, timeCli, type TimedCli } from "./timed-cli.ts";

const PROFILE = join(ROOT, "test/harness/foreign/foreign-profile.yaml");
const SECRET = "foreign-webhook-secret";

async function timeOneRun(seed: number, defect: ForeignDefect | undefined): Promise<TimedCli> {
  const port = await freePort();
  const target = await startForeignTarget({
    seed,
    webhook: { url: `http://127.0.0.1:${port}/webhooks`, secret: SECRET },
    ...(defect === undefined ? {} : { defect }),
  });
  const dir = await mkdtemp(join(tmpdir(), "foreign-run-"));
  try {
    const accounts = join(dir, "accounts.txt");
    await writeFile(accounts, `${target.accounts.join("\n")}\n`);
    return await timeCli([
      "contract",
      ...["--target", target.url, "--token-command", target.tokenCommand, "--other-token", target.tokens.other],
      ...["--accounts", accounts, "--webhook-listen", `127.0.0.1:${port}`, "--webhook-secret", SECRET],
      ...["--profile", "interface", "--provider", PROFILE, "--seed", String(seed), "--verbose"],
    ]);
  } finally {
    await target.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const { values } = parseArgs({
  options: { seed: { type: "string", default: "1" }, defect: { type: "string" } },
});
const defect = values.defect as ForeignDefect | undefined;
const timed = await timeOneRun(Number(values.seed), defect);
process.stdout.write(
  [
    `foreign provider${defect === undefined ? " (correct)" : ` with ${defect}`}, seed ${values.seed}`,
    `wall time from start to exit: ${(timed.wallMs / 1000).toFixed(1)} s (exit ${String(timed.exitCode)})`,
    "",
    timed.output,
  ].join("\n"),
);
