/**
 * How long `profile init --from-target` takes with webhooks, against each
 * test provider of test/learn/providers/ (finals 100–400 ms, so under a
 * second; failures and reversals at their default rates): the CLI in a
 * child process as a user starts it, the second customer's token, the
 * webhooks posted to its listen address. Prints the wall time, the exit
 * code, what the provider counted as spent and the budget the probe
 * reported; asserts nothing (speed is measured, never a test's verdict).
 *
 *   npx tsx scripts/time-profile-init.ts [--seed N]
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { freePort } from "../src/harness/child-process.ts";
import type { Dialect } from "../test/learn/providers/dialect.ts";
import { JAMBO } from "../test/learn/providers/jambo-dialect.ts";
import { startProvider } from "../test/learn/providers/provider-server.ts";
import { SIMU } from "../test/learn/providers/simu-dialect.ts";
import { timeCli } from "./timed-cli.ts";

const SECRET = "learn-webhook-secret";

async function timeOneProbe(dialect: Dialect, seed: number): Promise<string> {
  const port = await freePort();
  const provider = await startProvider(dialect, {
    seed,
    webhook: { url: `http://127.0.0.1:${port}/webhooks`, secret: SECRET },
  });
  const dir = await mkdtemp(join(tmpdir(), "profile-init-"));
  try {
    const { wallMs, exitCode, output } = await timeCli([
      ...["profile", "init", "--from-target", provider.url],
      ...["--token", provider.tokens.primary, "--other-token", provider.tokens.other],
      ...["--listen", `127.0.0.1:${port}`, "--webhook-secret", SECRET, join(dir, "provider.yaml")],
    ]);
    const budget = /spent KES \S+ of a budget of KES \S+/.exec(output)?.[0] ?? "no budget line";
    return `${dialect.name}: ${(wallMs / 1000).toFixed(1)} s (exit ${String(exitCode)}), provider counted KES ${provider.spentKes()} spent; the probe printed "${budget}"`;
  } finally {
    await provider.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const { values } = parseArgs({ options: { seed: { type: "string", default: "1" } } });
for (const dialect of [JAMBO, SIMU]) {
  process.stdout.write(`${await timeOneProbe(dialect, Number(values.seed))}\n`);
}
