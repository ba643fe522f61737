/**
 * Profiles: a deployment that follows the interface but is shaped
 * differently wherever the interface is silent (an enveloped body, money as
 * strings, 422 for invalid input, 404 for a wrong method, 200 without an id
 * for an insufficient balance), with random outcomes, passes every check of
 * the `interface` profile — read through a mapping file — and fails
 * `strict` by name.
 */
import { afterAll, expect, test } from "vitest";
import { parseBodyMapping } from "../../src/harness/body-mapping.ts";
import { CHECK_NAMES } from "../../src/harness/checks.ts";
import { CHECK_PROFILES, checksOf, formatCheckList } from "../../src/harness/profiles.ts";
import { runContract } from "../../src/harness/run-contract.ts";
import { type BlackBoxTarget, SHAPED_MAPPING, startBlackBoxTarget } from "./black-box-targets.ts";

const open: BlackBoxTarget[] = [];

afterAll(async () => {
  for (const target of open.splice(0)) await target.close();
});

test("every check is tagged with its profiles, and each interface check names what it rests on", () => {
  for (const name of CHECK_NAMES) {
    const entry = CHECK_PROFILES[name];
    expect(entry.profiles).toContain("strict");
    if (entry.profiles.includes("interface")) expect(entry.interface).toMatch(/§\d|universal/);
  }
  expect(checksOf("interface").has("status_code_conformance")).toBe(false);
  expect(checksOf("interface").has("customer_isolation")).toBe(true);
  const list = formatCheckList();
  for (const name of CHECK_NAMES) expect(list).toContain(name);
  expect(list).toContain("[strict, interface]");
});

test("a differently shaped deployment passes under interface with a mapping and fails strict by name", async () => {
  const mapping = parseBodyMapping(SHAPED_MAPPING);
  if (!mapping.ok) throw new Error(mapping.error);
  const target = await startBlackBoxTarget("shaped_differently", 21);
  open.push(target);

  const underInterface = await runContract({
    ...target.options,
    seed: 21,
    runs: 8,
    profile: "interface",
    mapping: mapping.mapping,
  });
  const judged = underInterface.checks.filter((c) => c.status !== "skipped");
  expect(underInterface.errors).toEqual([]);
  expect(judged.filter((c) => c.status !== "passed").map((c) => `${c.name}: ${JSON.stringify(c)}`)).toEqual([]);
  expect(judged.map((c) => c.name).sort()).toEqual(
    [...checksOf("interface")].filter((name) => name !== "customer_isolation").sort(),
  );
  expect(underInterface.checks.find((c) => c.name === "status_code_conformance")?.status).toBe("skipped");

  const underStrict = await runContract({
    ...target.options,
    seed: 21,
    runs: 8,
    maxFailures: 1,
    properties: ["model"],
  });
  expect(underStrict.checks.filter((c) => c.status === "failed").map((c) => c.name)).toEqual([
    "response_schema_conformance",
  ]);
}, 180_000);
