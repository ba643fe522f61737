/**
 * A profile whose domain lies outside what the provider accepts makes the
 * provider refuse every order; the run's unjudged checks then say that
 * every order was refused, and how, instead of "no case came up" — seen
 * against the foreign provider as a black box.
 */
import { readFile } from "node:fs/promises";
import { expect, test } from "vitest";
import { parseProviderProfile } from "../../src/contract/provider-profile/load.ts";
import { runContract } from "../../src/harness/run-contract.ts";
import { interfaceRunAgainst, startForeignTarget } from "./foreign/foreign-target.ts";

test("every order refused as outside the provider's domain: each unjudged check names the refusals", async () => {
  const text = await readFile(new URL("./foreign/foreign-profile.yaml", import.meta.url), "utf8");
  // The provider takes KES 10–5,000; this profile claims 6,000 and up.
  const loaded = parseProviderProfile(text.replace("amount: { min: 10, max: 5000", "amount: { min: 6000, max: 9000"));
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  const target = await startForeignTarget({ finalDelayMs: { min: 20, max: 60 } });
  try {
    const report = await runContract({ ...interfaceRunAgainst(target), provider: loaded.profile, seed: 2, runs: 3 });
    const reasons = new Map<string, string | undefined>(
      report.checks.map((check) => [check.name, "reason" in check ? check.reason : undefined]),
    );
    for (const name of ["idempotent_replay", "payload_mismatch_rejected", "status_monotonic", "customer_isolation"]) {
      expect(reasons.get(name), name).toMatch(
        /^no order was placed: the target refused all \d+ valid order\(s\) .*HTTP 422 INVALID_REQUEST.*--spec$/,
      );
    }
    expect([...reasons.values()].filter((reason) => reason?.includes("no case of it came up"))).toEqual([]);
  } finally {
    await target.close();
  }
}, 120_000);
