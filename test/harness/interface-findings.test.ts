/**
 * The seven false results and misses found by running `--profile interface`
 * against a correct deployment that is foreign wherever the interface is
 * silent (see FOREIGN_VARIANTS): each is a test here.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parseProviderProfile } from "../../src/contract/provider-profile/load.ts";
import type { ContractOptions } from "../../src/harness/contract-options.ts";
import type { ContractReport } from "../../src/harness/report.ts";
import { runContract } from "../../src/harness/run-contract.ts";
import {
  type BlackBoxDefect,
  type BlackBoxTarget,
  FOREIGN_PROFILE_YAML,
  startBlackBoxTarget,
} from "./black-box-targets.ts";

const open: BlackBoxTarget[] = [];
afterAll(async () => {
  for (const target of open.splice(0)) await target.close();
});

function providerOptions(): Partial<ContractOptions> {
  const loaded = parseProviderProfile(FOREIGN_PROFILE_YAML);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  return { provider: loaded.profile };
}

async function runAgainst(variant: BlackBoxDefect, options: Partial<ContractOptions> = {}): Promise<ContractReport> {
  const target = await startBlackBoxTarget(variant, 7);
  open.push(target);
  return runContract({
    ...target.options,
    ...providerOptions(),
    profile: "interface",
    seed: 7,
    runs: 8,
    shrinkTimeMs: 1000,
    ...options,
  });
}

function verdict(report: ContractReport, check: string): string {
  const found = report.checks.find((c) => c.name === check);
  return found?.status === "failed" ? `failed: ${found.failure.message}` : (found?.status ?? "missing");
}

describe("a correct deployment foreign in every open dimension, under interface with its profile", () => {
  let report: ContractReport;
  beforeAll(async () => {
    report = await runAgainst("foreign", { properties: ["model"] });
  }, 180_000);

  test("(a) the receiver finds an order's webhooks through the profile's webhook pointers", () => {
    expect(verdict(report, "webhook_delivered")).toBe("passed");
    expect(verdict(report, "webhook_matches_lookup")).toBe("passed");
  });

  test("(b) the 409's error code is read through the profile's error pointer", () => {
    expect(verdict(report, "payload_mismatch_rejected")).toBe("passed");
  });

  test("(c) Idempotent-Replayed: true is not demanded of parallel identical requests", () => {
    expect(verdict(report, "idempotent_replay")).toBe("passed");
  });
});

test("(d) a Success reversed and refunded after settling does not fail no_double_charge", async () => {
  const report = await runAgainst("foreign_late_reversal", { properties: ["model"], runs: 12 });
  expect(verdict(report, "no_double_charge")).toBe("passed");
  expect(report.errors).toEqual([]);
}, 180_000);

test("(e) a connection reset on a body over 64 KiB is an observation, never a harness error", async () => {
  const report = await runAgainst("foreign_reset_large_body", { properties: ["negative-input"] });
  expect(report.errors).toEqual([]);
  expect(verdict(report, "never_server_error")).toBe("passed");
}, 180_000);

test("(f) a lookup that does not percent-decode the reference fails lookup_consistent", async () => {
  const report = await runAgainst("foreign_path_not_decoded", { properties: ["model"], maxFailures: 1 });
  expect(verdict(report, "lookup_consistent")).toMatch(/^failed: /);
  expect(report.errors).toEqual([]);
}, 180_000);

test("(g) under interface a final status that reads as pending again fails status_monotonic", async () => {
  const report = await runAgainst("foreign_final_then_pending", { properties: ["model"], maxFailures: 1 });
  expect(verdict(report, "status_monotonic")).toMatch(/^failed: .*reports status 0 after status \d+/);
}, 180_000);
