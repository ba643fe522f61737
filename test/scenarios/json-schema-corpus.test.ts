/**
 * spec/scenario.schema.json, the schema editors check scenario files with,
 * rejects the files the loader rejects: the same corpus of bad files runs
 * through both. The few rules JSON Schema cannot express are listed here by
 * name, and the list is exact: a rule the schema learns to express must
 * leave it.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { expect, test } from "vitest";
import { parse as parseYaml } from "yaml";
import { listLibraryFiles } from "../../src/scenarios/library.ts";
import { parseScenarioText } from "../../src/scenarios/load.ts";
import { BAD_SCENARIO_FILES } from "./bad-scenario-files.ts";
import { compileSpecSchema } from "../support/json-schema-validator.ts";

/** Rejected by the loader, accepted by the schema: what JSON Schema cannot say. */
const NOT_EXPRESSIBLE: Readonly<Record<string, string>> = {
  "a reference pattern that does not compile": "whether a regular expression compiles",
  "two rules with one name": "that one property is unique across the items of a list",
  "a uniform range upside down": "that one number is at most another",
  "an amount range upside down": "that one number is at most another",
  "a status the table lacks": "the status table, which a status profile may replace",
  "a path leaving a final status": "the status table's lifecycle",
  "a reversal of a failure": "the status table's classes",
};

/** Not YAML a schema could be given: the YAML parser refuses them first. */
const NOT_YAML = new Set(["broken YAML", "a YAML key twice"]);

const validator = () => compileSpecSchema("spec/scenario.schema.json");

test("the scenario schema has an $id where the published package serves it", async () => {
  const { schema } = await validator();
  expect(schema.$id).toBe("https://unpkg.com/airtime-harness/spec/scenario.schema.json");
  expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
});

test("the package exports both schemas by path, as airtime-harness/schemas/…", () => {
  const require = createRequire(import.meta.url);
  expect(require.resolve("airtime-harness/schemas/scenario.schema.json")).toBe(resolve("spec/scenario.schema.json"));
  expect(require.resolve("airtime-harness/schemas/config.schema.json")).toBe(resolve("spec/config.schema.json"));
});

test("every shipped scenario names the schema by its $id, which works from any project", async () => {
  const { schema } = await validator();
  for (const file of await listLibraryFiles()) {
    const firstLine = (await readFile(file, "utf8")).split("\n")[0];
    expect(firstLine, file).toBe(`# yaml-language-server: $schema=${String(schema.$id)}`);
  }
});

test("the scenario schema accepts every shipped scenario", async () => {
  const { validate } = await validator();
  const files = await listLibraryFiles();
  expect(files.length).toBeGreaterThan(10);
  for (const file of files) {
    expect(validate(parseYaml(await readFile(file, "utf8"))), `${file}: ${JSON.stringify(validate.errors)}`).toBe(true);
  }
});

test.each(BAD_SCENARIO_FILES.filter((bad) => !NOT_YAML.has(bad.case)))(
  "$case: the loader rejects it, and so does the schema unless JSON Schema cannot express the rule",
  async ({ case: name, text }) => {
    const { validate } = await validator();
    expect(parseScenarioText(text, "qa/broken.yaml").ok).toBe(false);
    expect(validate(parseYaml(text))).toBe(name in NOT_EXPRESSIBLE);
  },
);

test("every case the list names is in the corpus, and the YAML-only cases fail to parse", () => {
  const cases = new Set(BAD_SCENARIO_FILES.map((bad) => bad.case));
  for (const name of [...Object.keys(NOT_EXPRESSIBLE), ...NOT_YAML]) expect(cases).toContain(name);
  for (const bad of BAD_SCENARIO_FILES.filter((entry) => NOT_YAML.has(entry.case))) {
    expect(() => parseYaml(bad.text), bad.case).toThrow();
  }
});
