/**
 * Under `interface`, the refusal statuses and codes the profile states are
 * judged, and those it leaves out are not: the foreign target refuses a bad
 * token with 401, and an order missing a required field with 422
 * INVALID_REQUEST, seen only as a black box.
 */
import { afterAll, describe, expect, test } from "vitest";
import { parseProviderProfile } from "../../src/contract/provider-profile/load.ts";
import type { ContractReport } from "../../src/harness/report.ts";
import { runContract } from "../../src/harness/run-contract.ts";
import { type BlackBoxTarget, FOREIGN_PROFILE_YAML, startBlackBoxTarget } from "./black-box-targets.ts";

const open: BlackBoxTarget[] = [];
afterAll(async () => {
  for (const target of open.splice(0)) await target.close();
});

async function verdict(profileYaml: string, property: "auth" | "negative-input", checkName: string): Promise<string> {
  const loaded = parseProviderProfile(profileYaml);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  const target = await startBlackBoxTarget("foreign", 7);
  open.push(target);
  const report: ContractReport = await runContract({
    ...target.options,
    provider: loaded.profile,
    profile: "interface",
    properties: [property],
    seed: 7,
    runs: 5,
    shrinkTimeMs: 1000,
  });
  const check = report.checks.find((c) => c.name === checkName);
  return check?.status === "failed" ? `failed: ${check.failure.message}` : (check?.status ?? "missing");
}

const authVerdict = (yaml: string) => verdict(yaml, "auth", "auth_required");
const invalidInputVerdict = (yaml: string) => verdict(yaml, "negative-input", "negative_input_rejected");

describe("the profile's stated refusal status is judged, an unstated one is free", () => {
  test("the stated 401 matches the target: passed", async () => {
    expect(await authVerdict(FOREIGN_PROFILE_YAML)).toBe("passed");
  }, 120_000);

  test("a stated status the target does not answer (403) is caught", async () => {
    const yaml = FOREIGN_PROFILE_YAML.replace("unauthorized: 401", "unauthorized: 403");
    expect(await authVerdict(yaml)).toMatch(/^failed: .*expected HTTP 403, got HTTP 401/);
  }, 120_000);

  test("with no http section and no code, any 4xx refusal passes", async () => {
    const yaml = FOREIGN_PROFILE_YAML.replace(/^http: .*\n/m, "");
    expect(await authVerdict(yaml)).toBe("passed");
  }, 120_000);
});

describe("an order missing a field §2.1 requires is refused as the profile states", () => {
  const withCodes = (codes: string) => `${FOREIGN_PROFILE_YAML}errorCodes: ${codes}\n`;

  test("the stated 422 and code match the target: passed", async () => {
    expect(await invalidInputVerdict(withCodes("{ invalidInput: validation_failed }"))).toBe("passed");
  }, 120_000);

  test("a stated status the target does not answer (400) is caught", async () => {
    const yaml = FOREIGN_PROFILE_YAML.replace("invalidInput: 422", "invalidInput: 400");
    expect(await invalidInputVerdict(yaml)).toMatch(
      /^failed: without required \w+ \(§2\.1\): expected HTTP 400, got HTTP 422/,
    );
  }, 120_000);

  test("a stated code the target does not give is caught", async () => {
    expect(await invalidInputVerdict(withCodes("{ invalidInput: INVALID_REQUEST }"))).toMatch(
      /expected error code INVALID_REQUEST, got HTTP 422 validation_failed/,
    );
  }, 120_000);

  test("with no http section and no codes, the target's own refusal passes", async () => {
    const yaml = FOREIGN_PROFILE_YAML.replace(/^http: .*\n/m, "");
    expect(await invalidInputVerdict(yaml)).toBe("passed");
  }, 120_000);
});
