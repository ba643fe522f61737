/**
 * A profile that says less judges less, never wrongly: a correct deployment
 * shaped differently (enveloped bodies, money as strings) whose webhooks come
 * as `{"event": "airtime.status", "data": {…}}` (our spec's event value,
 * under a field our spec does not use), read through a profile that names
 * the webhook's pointers but states no `webhooks.event` — or through the
 * deprecated mapping file, which cannot state one — takes
 * every delivery whose reference (at its pointer) names an order as that
 * order's event. The run passes over five seeds with webhook_delivered
 * judged, at the default webhook timeout: a delivery set aside would fail it
 * after waiting that timeout out. A filter the deliveries do not pass fails
 * webhook_delivered, naming the count and the filter.
 */
import { afterAll, expect, test } from "vitest";
import { parseProviderProfile } from "../../src/contract/provider-profile/load.ts";
import type { ProviderProfile } from "../../src/contract/provider-profile/schema.ts";
import { CONTRACT_DEFAULTS } from "../../src/harness/contract-settings.ts";
import { mappingToProfile } from "../../src/harness/mapping-file.ts";
import type { ContractReport } from "../../src/harness/report.ts";
import { runContract } from "../../src/harness/run-contract.ts";
import { type BlackBoxTarget, FOREIGN_PROFILE_YAML, SHAPED_MAPPING, startBlackBoxTarget } from "./black-box-targets.ts";

const SEEDS = [1, 2, 3, 4, 5];
const open: BlackBoxTarget[] = [];

afterAll(async () => {
  for (const target of open.splice(0)) await target.close();
});

/** The foreign profile, less its error pointers: the shaped deployment writes its errors as ours do. */
const SHAPED_PROFILE_YAML = FOREIGN_PROFILE_YAML.split("\n")
  .filter((line) => !line.trim().startsWith("error:"))
  .join("\n");

function profileOf(yaml: string): ProviderProfile {
  const loaded = parseProviderProfile(yaml);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  return loaded.profile;
}

/** The model runs under `interface` against the deployment whose webhooks say `airtime.status` under /event. */
async function runEnveloped(provider: ProviderProfile, seed: number): Promise<ContractReport> {
  const target = await startBlackBoxTarget("shaped_status_event", seed);
  open.push(target);
  try {
    return await runContract({
      ...target.options,
      webhookTimeoutMs: CONTRACT_DEFAULTS.webhookTimeoutMs,
      profile: "interface",
      provider,
      properties: ["model"],
      // A correct target: enough runs to meet every final class, few enough for five seeds side by side.
      runs: 10,
      seed,
    });
  } finally {
    await target.close();
  }
}

function expectPassedWithWebhooksJudged(reports: readonly ContractReport[]): void {
  for (const [index, report] of reports.entries()) {
    const context = `seed ${SEEDS[index]}`;
    const failed = report.checks.flatMap((c) => (c.status === "failed" ? [`${c.name}: ${c.failure.message}`] : []));
    expect([...failed, ...report.errors], context).toEqual([]);
    for (const check of ["webhook_delivered", "webhook_matches_lookup"])
      expect(report.checks.find((c) => c.name === check)?.status, `${check}, ${context}`).toBe("passed");
  }
}

test("a profile with the webhook's pointers and no event filter passes over five seeds", async () => {
  const withoutEvent = profileOf(
    SHAPED_PROFILE_YAML.split("\n")
      .filter((line) => !line.trim().startsWith("event:"))
      .join("\n"),
  );
  expectPassedWithWebhooksJudged(await Promise.all(SEEDS.map((seed) => runEnveloped(withoutEvent, seed))));
}, 240_000);

test("a mapping file with webhook pointers (it cannot state an event) passes over five seeds", async () => {
  const mapping = mappingToProfile({
    ...SHAPED_MAPPING,
    webhook: { id: "/data/id", status: "/data/status", reference: "/data/reference" },
  });
  if (!mapping.ok) throw new Error(mapping.error);
  expectPassedWithWebhooksJudged(await Promise.all(SEEDS.map((seed) => runEnveloped(mapping.profile, seed))));
}, 240_000);

test("a profile whose event filter sets every delivery aside fails webhook_delivered, naming the count and the filter", async () => {
  const wrongEvent = profileOf(SHAPED_PROFILE_YAML.replace("values: [airtime.completed]", "values: [airtime.failed]"));
  const target = await startBlackBoxTarget("shaped_status_event", 1);
  open.push(target);
  const report = await runContract({
    ...target.options,
    profile: "interface",
    provider: wrongEvent,
    properties: ["model"],
    runs: 3,
    maxFailures: 1,
    // The failure's message is the finding; how small its case gets is not, so it is not shrunk.
    shrinkTimeMs: 0,
    seed: 1,
  });
  const verdict = report.checks.find((c) => c.name === "webhook_delivered");
  expect(verdict?.status).toBe("failed");
  const message = verdict?.status === "failed" ? verdict.failure.message : "";
  expect(message).toMatch(/\d+ delivery\(ies\) naming it arrived, set aside by the profile's event filter/);
  expect(message).toContain('/event must be one of [airtime.failed], they carried "airtime.status"');
}, 120_000);
