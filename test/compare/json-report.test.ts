/**
 * `compare --json FILE`: a real run's report, written by the command, is
 * valid under the committed spec/compare-report.schema.json as ajv reads it;
 * that file is the one generated from the zod schema; a divergence carries
 * both sides' evidence and the sequence that shows it, and no token.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, expect, test, vi } from "vitest";
import { main } from "../../src/cli/main.ts";
import { compareJsonReport, publicUrl } from "../../src/compare/json-report.ts";
import { COMPARE_REPORT_SCHEMA_FILE, renderCompareReportJsonSchema } from "../../src/compare/report-schema.ts";
import { runCompare } from "../../src/compare/run-compare.ts";
import { compileSpecSchema } from "../support/json-schema-validator.ts";
import { useTempFolder } from "../support/temp-folder.ts";
import { CompareTargets, REFERENCE_SETTINGS, TARGET_TOKEN } from "../support/compare-targets.ts";

const targets = new CompareTargets();
afterEach(() => targets.close());
const folder = useTempFolder("compare-json-");

/** Runs the command quietly; returns its exit code. */
async function quietly(args: readonly string[]): Promise<number> {
  const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
  const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
  try {
    return await main(["compare", ...args]);
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

test("the committed JSON Schema is the one generated from the report schema", async () => {
  expect(await readFile(COMPARE_REPORT_SCHEMA_FILE, "utf8")).toBe(renderCompareReportJsonSchema());
  const { schema } = await compileSpecSchema(COMPARE_REPORT_SCHEMA_FILE);
  expect(schema.$id).toBe("https://unpkg.com/airtime-harness/spec/compare-report.schema.json");
});

test("compare --json writes a report the JSON Schema accepts, with every rule, the scores and no token", async () => {
  const target = await targets.simulator({ seed: 21 });
  const simConfig = join(folder(), "reference.json");
  await writeFile(simConfig, JSON.stringify(REFERENCE_SETTINGS));
  const file = join(folder(), "report.json");
  const args = ["--target", target, "--token", TARGET_TOKEN, "--seed", "4", "--runs", "4", "--settle", "10s"];
  expect(await quietly([...args, "--sim-config", simConfig, "--json", file])).toBe(0);

  const text = await readFile(file, "utf8");
  const report = JSON.parse(text) as Record<string, unknown> & {
    rules: { rule: string; agrees: boolean; simulator: { kind: string } }[];
    scores: { overall: number; operations: Record<string, number | null> };
  };
  const { validate } = await compileSpecSchema(COMPARE_REPORT_SCHEMA_FILE);
  expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
  expect(report).toMatchObject({ seed: 4, runs: 4, target: { url: target }, divergences: 0 });
  expect(report.scores.overall).toBe(1);
  expect(report.scores.operations.webhook).toBeNull();
  expect(report.rules.map((rule) => rule.rule)).toContain("pending → final time");
  expect(new Set(report.rules.map((rule) => rule.simulator.kind))).toEqual(new Set(["answers", "rate", "timing"]));
  expect(text).not.toContain(TARGET_TOKEN);

  // A document the schema forbids is refused by the same validator: it does judge.
  expect(validate({ ...report, rules: [{ ...report.rules[0], severity: "fatal" }] })).toBe(false);
});

test("a planted divergence carries both sides' evidence and the sequence that shows it", async () => {
  const target = await targets.simulator({
    seed: 22,
    provider: {
      profile: 1,
      http: { invalidInput: 422, unauthorized: 401, insufficientBalance: 402, notFound: 404, wrongMethod: 405 },
    },
  });
  const report = await runCompare({
    target,
    token: TARGET_TOKEN,
    seed: 7,
    runs: 8,
    settleMs: 10_000,
    reference: REFERENCE_SETTINGS,
  });
  const json = compareJsonReport(report);
  const { validate } = await compileSpecSchema(COMPARE_REPORT_SCHEMA_FILE);
  expect(validate(JSON.parse(JSON.stringify(json))), JSON.stringify(validate.errors)).toBe(true);
  const divergent = json.rules.filter((rule) => !rule.agrees);
  expect(divergent.map((rule) => rule.rule)).toEqual(["invalid input: HTTP status and error code"]);
  const [rule] = divergent;
  expect(rule?.simulator).toMatchObject({ kind: "answers" });
  expect(Object.keys((rule?.target as { answers: object }).answers).join()).toMatch(/^refused 422/);
  const last = rule?.sequence?.at(-1);
  expect(last?.kind).toBe("invalid-amount");
  expect(last?.simulator.outcome).toMatch(/^refused 400/);
  expect(last?.target.outcome).toMatch(/^refused 422/);
  expect(last?.target.curl).toContain(target);
  expect(last?.target.curl).toContain("$TOKEN");
  expect(json.divergences).toBe(1);
});

test("a URL's user name and password never reach the report", () => {
  expect(publicUrl("https://user:secret@sandbox.example/api/")).toBe("https://sandbox.example/api");
});
