/**
 * Under `interface`, the statuses the profile states for an insufficient
 * balance and a wrong method are judged, and those it leaves out are free,
 * against the foreign provider seen only as a black box. Its second customer
 * holds KES 1,000 and its domain allows orders up to KES 5,000, so the
 * harness provokes an insufficient balance from that customer without
 * admin powers. The foreign provider answers it HTTP 200 with no id and
 * error code INSUFFICIENT_FUNDS, and a wrong method 404.
 */
import { readFile } from "node:fs/promises";
import { afterAll, describe, expect, test } from "vitest";
import { parseProviderProfile } from "../../src/contract/provider-profile/load.ts";
import type { CheckName } from "../../src/harness/checks.ts";
import { runContract } from "../../src/harness/run-contract.ts";
import type { ForeignDefect } from "./foreign/defects.ts";
import { type ForeignTarget, interfaceRunAgainst, startForeignTarget } from "./foreign/foreign-target.ts";

const open: ForeignTarget[] = [];
afterAll(async () => {
  for (const target of open.splice(0)) await target.close();
});

const PROFILE_YAML = await readFile(new URL("./foreign/foreign-profile.yaml", import.meta.url), "utf8");

/** The verdict of one check after the status-codes tour (enough runs to visit every stop) under `interface`. */
async function verdict(profileYaml: string, checkName: CheckName, defect?: ForeignDefect): Promise<string> {
  const loaded = parseProviderProfile(profileYaml);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  const target = await startForeignTarget({ seed: 11, ...(defect === undefined ? {} : { defect }) });
  open.push(target);
  const report = await runContract({
    ...interfaceRunAgainst(target),
    provider: loaded.profile,
    properties: ["status-codes"],
    seed: 11,
    runs: 40,
    shrinkTimeMs: 1000,
  });
  expect(report.errors).toEqual([]);
  const check = report.checks.find((c) => c.name === checkName);
  return check?.status === "failed" ? `failed: ${check.failure.message}` : (check?.status ?? "missing");
}

const failedOrderVerdict = (yaml: string, defect?: ForeignDefect) =>
  verdict(yaml, "response_schema_conformance", defect);
const wrongMethodVerdict = (yaml: string) => verdict(yaml, "negative_input_rejected");

describe("an order beyond the balance is a failed order, as the profile states it", () => {
  test("the stated 200 and INSUFFICIENT_FUNDS match the target: passed", async () => {
    expect(await failedOrderVerdict(PROFILE_YAML)).toBe("passed");
  }, 120_000);

  test("a stated status the target does not answer (402) is caught", async () => {
    const yaml = PROFILE_YAML.replace("insufficientBalance: 200", "insufficientBalance: 402");
    expect(await failedOrderVerdict(yaml)).toMatch(
      /^failed: an order beyond the balance is a failed order, without an id \(§7\): expected HTTP 402, got HTTP 200 INSUFFICIENT_FUNDS/,
    );
  }, 120_000);

  test("a stated code the target does not give is caught", async () => {
    const yaml = PROFILE_YAML.replace("insufficientBalance: INSUFFICIENT_FUNDS", "insufficientBalance: NO_FUNDS");
    expect(await failedOrderVerdict(yaml)).toMatch(/expected error code NO_FUNDS, got HTTP 200 INSUFFICIENT_FUNDS/);
  }, 120_000);

  test("with neither stated, a wrong status or code is free, but an id on the failed order is still caught (§7)", async () => {
    const unstated = PROFILE_YAML.replace(/^ {2}insufficientBalance: .*\n/gm, "");
    expect(unstated).not.toMatch(/insufficientBalance/);
    expect(await failedOrderVerdict(unstated)).toBe("passed");
    expect(await failedOrderVerdict(unstated, "failed_order_keeps_id")).toMatch(
      /^failed: an order beyond the balance is a failed order, without an id \(§7\): an order was placed \(got HTTP 200 INSUFFICIENT_FUNDS with an id\)/,
    );
  }, 240_000);
});

describe("a wrong method is judged only where the profile states its status", () => {
  test("the stated 404 matches the target: passed", async () => {
    expect(await wrongMethodVerdict(PROFILE_YAML)).toBe("passed");
  }, 120_000);

  test("a stated status the target does not answer (405) is caught", async () => {
    const yaml = PROFILE_YAML.replace("wrongMethod: 404", "wrongMethod: 405");
    expect(await wrongMethodVerdict(yaml)).toMatch(
      /^failed: DELETE \/v1\/airtime, a wrong method \(http\.wrongMethod\): expected HTTP 405, got HTTP 404 NOT_FOUND/,
    );
  }, 120_000);

  test("left out, the target's 404 is not judged at all", async () => {
    const yaml = PROFILE_YAML.replace(/^ {2}wrongMethod: .*\n/m, "");
    expect(yaml).not.toMatch(/wrongMethod/);
    // Nothing else the chosen tour sends is judged by this check: unasserted, it is reported as skipped.
    expect(await wrongMethodVerdict(yaml)).toBe("skipped");
  }, 120_000);
});
