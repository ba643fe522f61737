/**
 * Negative cases at the target's own minimum: every invalid request is
 * built on an order inside the amounts the provider profile states. A
 * provider whose smallest order is KES 20 (as Simu's) is judged right, and
 * a defect there — an order without its currency accepted, the currency
 * filled in — is caught by `negative_input_rejected`. Built on a KES 10
 * order, every such case would be refused for its amount, and the defect
 * would pass unseen.
 */
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { loadProviderProfile } from "../../src/contract/provider-profile/load.ts";
import type { ProviderProfile } from "../../src/contract/provider-profile/schema.ts";
import { fixedNegativeCases } from "../../src/harness/properties/negative-cases.ts";
import { defaultRecipients } from "../../src/harness/accounts.ts";
import type { ContractReport } from "../../src/harness/report.ts";
import { runContract } from "../../src/harness/run-contract.ts";
import { createSimulator } from "../../src/simulator/create-simulator.ts";
import { jsonOf, startRewritingProxy } from "./rewriting-proxy.ts";

const OUR_DIALECT = fileURLToPath(new URL("../../examples/providers/airtime-harness.yaml", import.meta.url));
const SEEDS = [1, 2, 3, 4, 5];
const AMOUNTS = { min: 20, max: 3000, decimals: 2 };

/** Our dialect, with Simu's amounts: KES 20 to 3,000. */
async function twentyShillingProfile(): Promise<ProviderProfile> {
  const loaded = await loadProviderProfile(OUR_DIALECT);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  return { ...loaded.profile, domain: { ...loaded.profile.domain, amount: AMOUNTS } };
}

/**
 * The simulator with a KES 20 minimum; with `fillsCurrency`, a proxy in
 * front fills in a missing currency, so an order without one is placed.
 */
async function runAgainst(provider: ProviderProfile, seed: number, fillsCurrency: boolean): Promise<ContractReport> {
  const token = `domain-${randomBytes(6).toString("hex")}`;
  const sim = await createSimulator({
    clock: "real",
    seed,
    timing: { kind: "fixed", ms: 50 },
    demo: false,
    scenarios: false,
    limits: { minAmount: AMOUNTS.min, maxAmount: AMOUNTS.max },
    customers: [{ id: "domain", token, balance: 1_000_000 }],
  });
  const simUrl = await sim.listen(0, "127.0.0.1");
  const proxy = await startRewritingProxy(simUrl, async (req, forward) => {
    const body = jsonOf(req.body);
    if (!fillsCurrency || req.method !== "POST" || body === undefined || "currency" in body) return forward();
    return forward({ body: JSON.stringify({ ...body, currency: "KES" }) });
  });
  try {
    return await runContract({
      target: proxy.url,
      token,
      seed,
      profile: "interface",
      provider,
      properties: ["negative-input"],
      maxFailures: 1,
      shrinkTimeMs: 1000,
    });
  } finally {
    await proxy.close();
    await sim.close();
  }
}

const failures = (report: ContractReport) =>
  report.checks.flatMap((check) => (check.status === "failed" ? [`${check.name}: ${check.failure.message}`] : []));

test("the fixed cases stand on an order at the domain's own minimum, and break its bounds", () => {
  const cases = fixedNegativeCases(defaultRecipients(), { minAmount: 20, maxAmount: 3000, decimals: 2 });
  const withoutCurrency = cases.find((negative) => negative.missingRequired === "currency");
  expect(JSON.parse(withoutCurrency?.body ?? "{}")).toMatchObject({ amount: 20 });
  const labels = cases.map((negative) => negative.label);
  expect(labels).toContain("amount 19.99 below the minimum 20");
  expect(labels).toContain("amount 3000.01 above the maximum 3000");
});

test("a target whose minimum is KES 20 passes negative input over five seeds", async () => {
  const provider = await twentyShillingProfile();
  const reports = await Promise.all(SEEDS.map((seed) => runAgainst(provider, seed, false)));
  for (const report of reports) {
    expect([...failures(report), ...report.errors], `seed ${report.seed}`).toEqual([]);
    expect(report.checks.find((check) => check.name === "negative_input_rejected")?.status).toBe("passed");
  }
}, 120_000);

test("an order without its currency, accepted at the KES 20 minimum, fails negative_input_rejected over five seeds", async () => {
  const provider = await twentyShillingProfile();
  const reports = await Promise.all(SEEDS.map((seed) => runAgainst(provider, seed, true)));
  for (const report of reports) {
    expect(failures(report), `seed ${report.seed}`).toEqual([
      expect.stringMatching(/^negative_input_rejected: without required currency/),
    ]);
  }
}, 120_000);
