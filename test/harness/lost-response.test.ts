/**
 * The lost response, judged right: a request whose answer never came (a
 * 5xx after the target committed, a connection reset after it committed)
 * leaves the order unknown, and the audit learns the truth by looking it up
 * and, where it is not found, replaying it with its key — so the order
 * charged once passes. Against `serve --scenario error-after-commit` (a real
 * child process) the 5xx is never_server_error's, once, and nothing else
 * fails over five seeds, the money and lookup checks judging the orders;
 * against the foreign provider (read through its profile under
 * `--profile interface`) that commits every new order and then resets the
 * connection, the whole run passes over five seeds.
 */
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { afterAll, expect, test } from "vitest";
import { parseProviderProfile } from "../../src/contract/provider-profile/load.ts";
import type { RunningProcess } from "../../src/harness/child-process.ts";
import type { ContractReport } from "../../src/harness/report.ts";
import { runContract } from "../../src/harness/run-contract.ts";
import { freePort, startServe } from "../support/processes.ts";
import { interfaceRunAgainst, startForeignTarget } from "./foreign/foreign-target.ts";

const SEEDS = [1, 2, 3, 4, 5];
const WEBHOOK_SECRET = "foreign-webhook-secret";
const children: RunningProcess[] = [];

afterAll(async () => {
  for (const child of children) await child.stop();
});

function failures(report: ContractReport): string[] {
  return [
    ...report.checks.flatMap((c) => (c.status === "failed" ? [`${c.name}: ${c.failure.message}`] : [])),
    ...report.errors,
  ];
}

test("against serve --scenario error-after-commit, over five seeds, the 500 is never_server_error's alone and the orders charged once pass the money and lookup checks", async () => {
  const token = `lost-${randomBytes(8).toString("hex")}`;
  const { server, url } = await startServe([
    "--timing",
    "200ms",
    "--demo-token",
    token,
    "--demo-balance",
    "100000",
    "--scenario",
    "error-after-commit",
  ]);
  children.push(server);
  // One after another on one account: each run's balance is read at its start, so runs never share a wave.
  // The 500 is judged by which check it fails, not by how small its case gets: it is not shrunk.
  for (const seed of SEEDS) {
    const report = await runContract({ target: url, token, runs: 20, finalTimeoutMs: 5000, shrinkTimeMs: 0, seed });
    expect(
      report.checks.filter((c) => c.status === "failed").map((c) => c.name),
      `seed ${seed}`,
    ).toEqual(["never_server_error"]);
    expect(report.errors, `seed ${seed}`).toEqual([]);
    for (const check of ["no_double_charge", "lookup_consistent"]) {
      expect(report.checks.find((c) => c.name === check)?.status, `${check}, seed ${seed}`).toBe("passed");
    }
  }
}, 300_000);

test("a foreign provider that commits every new order and then resets the connection passes over five seeds", async () => {
  const text = await readFile(new URL("./foreign/foreign-profile.yaml", import.meta.url), "utf8");
  const loaded = parseProviderProfile(text);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  const reports = await Promise.all(
    SEEDS.map(async (seed) => {
      const port = await freePort();
      const target = await startForeignTarget({
        seed,
        resetAfterCommit: true,
        webhook: { url: `http://127.0.0.1:${port}/webhooks`, secret: WEBHOOK_SECRET },
      });
      try {
        return await runContract({
          ...interfaceRunAgainst(target),
          webhookListen: `127.0.0.1:${port}`,
          webhookSecret: WEBHOOK_SECRET,
          provider: loaded.profile,
          seed,
        });
      } finally {
        await target.close();
      }
    }),
  );
  for (const [index, report] of reports.entries()) {
    expect(failures(report), `seed ${SEEDS[index]}`).toEqual([]);
    const money = report.checks.find((c) => c.name === "no_double_charge");
    expect(money?.status, `seed ${SEEDS[index]}`).toBe("passed");
  }
}, 600_000);
