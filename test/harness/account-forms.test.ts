/**
 * Accounts are sent in a form the provider's domain accepts: given as
 * E.164 to a provider that takes only local and international numbers,
 * they are rewritten, and operators it does not serve are left out.
 */
import { readFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { compileProfile } from "../../src/contract/provider-profile/compile.ts";
import { parseProviderProfile } from "../../src/contract/provider-profile/load.ts";
import { defaultRecipients, inDomain, toRecipient } from "../../src/harness/accounts.ts";
import { runContract } from "../../src/harness/run-contract.ts";
import { interfaceRunAgainst, startForeignTarget } from "./foreign/foreign-target.ts";

describe("inDomain", () => {
  test("rewrites an account in the first accepted form, and leaves accepted ones as they are", () => {
    const domain = compileProfile({ profile: 1, domain: { accounts: ["international", "local"] } }).domain;
    const recipients = ["+254712000101", "0733000202"].map((account) => toRecipient(account));
    expect(
      inDomain(
        recipients.filter((r) => r !== undefined),
        domain,
      ).map((r) => r.account),
    ).toEqual(["254712000101", "0733000202"]);
  });

  test("leaves out operators the provider does not serve, and refuses a list with none it serves", () => {
    const domain = compileProfile({ profile: 1, domain: { services: ["airtel"] } }).domain;
    expect(inDomain(defaultRecipients(), domain).map((r) => r.service)).toEqual(["airtel"]);
    const telkomOnly = compileProfile({ profile: 1, domain: { services: ["telkom"] } }).domain;
    const safaricom = [toRecipient("0712000101")].filter((r) => r !== undefined);
    expect(() => inDomain(safaricom, telkomOnly)).toThrow(/none of the accounts .*\(telkom\)/);
  });
});

async function foreignProfile() {
  const loaded = parseProviderProfile(
    await readFile(new URL("./foreign/foreign-profile.yaml", import.meta.url), "utf8"),
  );
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  return loaded.profile;
}

test("E.164 accounts reach a provider that refuses them written as it accepts them", async () => {
  const target = await startForeignTarget({ finalDelayMs: { min: 20, max: 60 } });
  try {
    const report = await runContract({
      ...interfaceRunAgainst(target),
      accounts: ["+254712000101", "+254733000202", "+254770000303"],
      provider: await foreignProfile(),
      properties: ["model"],
      seed: 5,
      runs: 4,
    });
    expect(report.checks.filter((c) => c.status === "failed")).toEqual([]);
    expect(target.refusedOrders()).toBe(0);
  } finally {
    await target.close();
  }
}, 120_000);
