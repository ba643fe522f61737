/**
 * Profiles: a deployment that follows the interface but is shaped
 * differently wherever the interface is silent (an enveloped body, money as
 * strings, 422 for invalid input, 404 for a wrong method, 200 without an id
 * for an insufficient balance), with random outcomes, passes every check of
 * the `interface` profile — read through a mapping file — and fails
 * `strict` by name.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { mappingToProfile } from "../../src/harness/mapping-file.ts";
import { CHECK_NAMES } from "../../src/harness/checks.ts";
import { CHECK_STRICTNESS, checksOf, formatCheckList } from "../../src/harness/strictness.ts";
import { runContract } from "../../src/harness/run-contract.ts";
import { type BlackBoxTarget, SHAPED_MAPPING, startBlackBoxTarget } from "./black-box-targets.ts";

const open: BlackBoxTarget[] = [];
const dirs: string[] = [];

afterAll(async () => {
  for (const target of open.splice(0)) await target.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

const money = { type: "string", pattern: "^-?\\d+\\.\\d{2}$" };
const envelope = (data: object) => ({
  content: {
    "application/json": { schema: { type: "object", required: ["data"], properties: { data: data } } },
  },
});
/** The differently shaped deployment's own OpenAPI document: enveloped bodies, money as strings. */
const SHAPED_DOCUMENT = {
  openapi: "3.1.0",
  info: { title: "Shaped airtime", version: "1" },
  paths: {
    "/v1/airtime": {
      post: {
        responses: {
          "200": envelope({
            type: "object",
            required: ["reference", "status", "message"],
            properties: { id: { type: "string" }, reference: { type: "string" }, status: { type: "integer" } },
          }),
        },
      },
    },
    "/v1/airtime/{reference}": {
      get: {
        responses: {
          "200": envelope({
            type: "object",
            required: ["id", "reference", "status", "amount"],
            properties: { id: { type: "string" }, status: { type: "integer" }, amount: money },
          }),
        },
      },
    },
    "/v1/balance": {
      get: { responses: { "200": envelope({ type: "object", required: ["amount"], properties: { amount: money } }) } },
    },
  },
};

test("every check is tagged with its profiles, and each interface check names what it rests on", () => {
  for (const name of CHECK_NAMES) {
    const entry = CHECK_STRICTNESS[name];
    expect(entry.strictness).toContain("strict");
    if (entry.strictness.includes("interface")) expect(entry.interface).toMatch(/§\d|universal/);
  }
  expect(checksOf("interface").has("status_code_conformance")).toBe(false);
  expect(checksOf("interface").has("customer_isolation")).toBe(true);
  const list = formatCheckList();
  for (const name of CHECK_NAMES) expect(list).toContain(name);
  expect(list).toContain("[strict, interface]");
});

test("a differently shaped deployment passes under interface with a mapping and fails strict by name", async () => {
  const mapping = mappingToProfile(SHAPED_MAPPING);
  if (!mapping.ok) throw new Error(mapping.error);
  const target = await startBlackBoxTarget("shaped_differently", 21);
  open.push(target);

  const underInterface = await runContract({
    ...target.options,
    seed: 21,
    runs: 8,
    profile: "interface",
    provider: mapping.profile,
  });
  const judged = underInterface.checks.filter((c) => c.status !== "skipped");
  expect(underInterface.errors).toEqual([]);
  expect(judged.filter((c) => c.status !== "passed").map((c) => `${c.name}: ${JSON.stringify(c)}`)).toEqual([]);
  expect(judged.map((c) => c.name).sort()).toEqual(
    // No second customer; the mapping names no signing scheme.
    [...checksOf("interface")]
      .filter((name) => name !== "customer_isolation" && name !== "webhook_signature_valid")
      .sort(),
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

test("--spec judges bodies against the target's own OpenAPI document", async () => {
  const mapping = mappingToProfile(SHAPED_MAPPING);
  if (!mapping.ok) throw new Error(mapping.error);
  const dir = await mkdtemp(join(tmpdir(), "harness-spec-"));
  dirs.push(dir);
  const own = join(dir, "shaped.json");
  await writeFile(own, JSON.stringify(SHAPED_DOCUMENT));
  const target = await startBlackBoxTarget("shaped_differently", 22);
  open.push(target);
  const base = { ...target.options, seed: 22, runs: 5, profile: "interface" as const, provider: mapping.profile };

  const againstOwn = await runContract({ ...base, specFile: own, properties: ["model"] });
  const schema = againstOwn.checks.find((c) => c.name === "response_schema_conformance");
  expect(schema?.status, JSON.stringify(schema)).toBe("passed");

  // Our spec's document does not describe the envelope: the same bodies fail, by name.
  const againstOurs = await runContract({
    ...base,
    specFile: "spec/openapi.yaml",
    properties: ["model"],
    maxFailures: 1,
  });
  expect(againstOurs.checks.filter((c) => c.status === "failed").map((c) => c.name)).toEqual([
    "response_schema_conformance",
  ]);
}, 120_000);
