/**
 * Under `interface`, the authentication status the profile states is judged,
 * and one it leaves out is not: the foreign target refuses a bad token with
 * 401, seen only as a black box.
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

async function authVerdict(profileYaml: string): Promise<string> {
  const loaded = parseProviderProfile(profileYaml);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  const target = await startBlackBoxTarget("foreign", 7);
  open.push(target);
  const report: ContractReport = await runContract({
    ...target.options,
    provider: loaded.profile,
    profile: "interface",
    properties: ["auth"],
    seed: 7,
    runs: 5,
    shrinkTimeMs: 1000,
  });
  const check = report.checks.find((c) => c.name === "auth_required");
  return check?.status === "failed" ? `failed: ${check.failure.message}` : (check?.status ?? "missing");
}

describe("the profile's stated refusal status is judged, an unstated one is free", () => {
  test("the stated 401 matches the target: passed", async () => {
    expect(await authVerdict(FOREIGN_PROFILE_YAML)).toBe("passed");
  }, 120_000);

  test("a stated status the target does not answer (403) is caught", async () => {
    const yaml = FOREIGN_PROFILE_YAML.replace("unauthorized: 401", "unauthorized: 403");
    expect(await authVerdict(yaml)).toMatch(/^failed: .*expected 403, got HTTP 401/);
  }, 120_000);

  test("with no http section and no code, any 4xx refusal passes", async () => {
    const yaml = FOREIGN_PROFILE_YAML.replace(/^http: .*\n/m, "");
    expect(await authVerdict(yaml)).toBe("passed");
  }, 120_000);
});
