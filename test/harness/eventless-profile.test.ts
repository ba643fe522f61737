/**
 * A profile that says less judges less, never wrongly: the foreign-shaped
 * deployment's webhooks come as `{"event": "airtime.completed", "data": {…}}`,
 * and a profile that names the webhook's pointers but states no
 * `webhooks.event` takes every delivery whose reference (at its pointer)
 * names an order as that order's event, so the correct deployment passes.
 */
import { afterAll, expect, test } from "vitest";
import { parseProviderProfile } from "../../src/contract/provider-profile/load.ts";
import { runContract } from "../../src/harness/run-contract.ts";
import { type BlackBoxTarget, FOREIGN_PROFILE_YAML, startBlackBoxTarget } from "./black-box-targets.ts";

const SEEDS = [1, 2, 3, 4, 5];
const open: BlackBoxTarget[] = [];

afterAll(async () => {
  for (const target of open.splice(0)) await target.close();
});

test("a correct enveloped-webhook deployment passes with a profile that has pointers but no event filter", async () => {
  const withoutEvent = FOREIGN_PROFILE_YAML.split("\n")
    .filter((line) => !line.trim().startsWith("event:"))
    .join("\n");
  const loaded = parseProviderProfile(withoutEvent);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  for (const seed of SEEDS) {
    const target = await startBlackBoxTarget("foreign", seed);
    open.push(target);
    const report = await runContract({
      ...target.options,
      profile: "interface",
      provider: loaded.profile,
      properties: ["model"],
      seed,
    });
    const failed = report.checks.flatMap((c) => (c.status === "failed" ? [`${c.name}: ${c.failure.message}`] : []));
    expect(failed, `seed ${seed}`).toEqual([]);
    expect(report.checks.find((c) => c.name === "webhook_delivered")?.status, `seed ${seed}`).toBe("passed");
    await target.close();
  }
}, 480_000);

test("a profile whose event filter sets every delivery aside fails webhook_delivered, naming the count and the filter", async () => {
  const wrongEvent = FOREIGN_PROFILE_YAML.replace("values: [airtime.completed]", "values: [airtime.status]");
  const loaded = parseProviderProfile(wrongEvent);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  const target = await startBlackBoxTarget("foreign", 1);
  open.push(target);
  const report = await runContract({
    ...target.options,
    profile: "interface",
    provider: loaded.profile,
    properties: ["model"],
    runs: 3,
    maxFailures: 1,
    seed: 1,
  });
  const verdict = report.checks.find((c) => c.name === "webhook_delivered");
  expect(verdict?.status).toBe("failed");
  const message = verdict?.status === "failed" ? verdict.failure.message : "";
  expect(message).toMatch(/\d+ delivery\(ies\) naming it arrived, set aside by the profile's event filter/);
  expect(message).toContain('/event must be one of [airtime.status], they carried "airtime.completed"');
}, 120_000);
