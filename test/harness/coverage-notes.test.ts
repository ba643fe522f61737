/**
 * Honest coverage of a rule the run cannot provoke: against the foreign
 * provider (read through its profile under `--profile interface`) whose
 * second customer holds more than the largest order its domain allows, the
 * §7 insufficient-balance rule is never tried. The check it belongs to
 * passes with a note giving the reason and the way to provoke it, and
 * `--require-coverage` turns the note into a failed run.
 */
import { readFile } from "node:fs/promises";
import { expect, test } from "vitest";
import { parseProviderProfile } from "../../src/contract/provider-profile/load.ts";
import { freePort } from "../../src/harness/child-process.ts";
import type { ContractReport } from "../../src/harness/report.ts";
import { runContract } from "../../src/harness/run-contract.ts";
import { startForeignTarget } from "./foreign/foreign-target.ts";

async function runWellFunded(requireCoverage: boolean): Promise<ContractReport> {
  const text = await readFile(new URL("./foreign/foreign-profile.yaml", import.meta.url), "utf8");
  const loaded = parseProviderProfile(text);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  const port = await freePort();
  // KES 1,000,000 for the second customer: no order of the domain (at most KES 5,000) exceeds it.
  const target = await startForeignTarget({ seed: 3, otherBalanceKes: 1_000_000 });
  try {
    return await runContract({
      target: target.url,
      tokenCommand: target.tokenCommand,
      otherToken: target.tokens.other,
      accounts: [...target.accounts],
      webhookListen: `127.0.0.1:${port}`,
      webhookSecret: "coverage-notes-secret",
      profile: "interface",
      provider: loaded.profile,
      properties: ["status-codes", "negative-input"],
      runs: 25,
      seed: 3,
      requireCoverage,
    });
  } finally {
    await target.close();
  }
}

test("the silent insufficient balance: a run where no account can be overdrawn names the §7 rule, the reason and the way", async () => {
  const report = await runWellFunded(false);
  expect(report.errors).toEqual([]);
  const verdict = report.checks.find((check) => check.name === "response_schema_conformance");
  expect(verdict?.status).toBe("passed");
  const notes = verdict?.status === "passed" ? (verdict.notes ?? []) : [];
  expect(notes).toHaveLength(1);
  expect(notes[0]).toMatch(/§7 insufficient-balance rule was not provoked/);
  expect(notes[0]).toMatch(/holds KES 1000000, more than the largest allowed order \(KES 5000\)/);
  expect(notes[0]).toMatch(/--other-token for a customer whose balance is below the largest order \(KES 5000\)/);
  expect(report.ok).toBe(true);
}, 120_000);

test("--require-coverage fails the run on that note", async () => {
  const report = await runWellFunded(true);
  expect(report.checks.find((check) => check.name === "response_schema_conformance")?.status).toBe("passed");
  expect(report.ok).toBe(false);
}, 120_000);
