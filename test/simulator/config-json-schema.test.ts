/**
 * spec/config.schema.json, generated from the one config schema, accepts the
 * config file the reference documents and rejects what the loader rejects
 * for a typo or a wrong type.
 */
import { readFile } from "node:fs/promises";
import { expect, test } from "vitest";
import { parse as parseYaml } from "yaml";
import { parseSimulatorConfig } from "../../src/simulator/config.ts";
import { codeBlocks, section } from "../support/markdown.ts";
import { compileSpecSchema } from "../support/json-schema-validator.ts";

const validator = () => compileSpecSchema("spec/config.schema.json");

async function documentedConfig(): Promise<unknown> {
  const docs = await readFile("docs/configuration.md", "utf8");
  const yaml = codeBlocks(section(docs, "the-config-file")).find((block) => block.language === "yaml");
  return parseYaml(yaml?.code ?? "");
}

test("the config schema has an $id where the published package serves it", async () => {
  const { schema } = await validator();
  expect(schema.$id).toBe("https://unpkg.com/airtime-harness/spec/config.schema.json");
});

test("the config schema and the loader accept the documented config file, $schema key included", async () => {
  const { validate } = await validator();
  const config = {
    $schema: "https://unpkg.com/airtime-harness/spec/config.schema.json",
    ...((await documentedConfig()) as object),
  };
  expect(parseSimulatorConfig(config).ok).toBe(true);
  expect(validate(config), JSON.stringify(validate.errors)).toBe(true);
});

test.each([
  ["a misspelt key", { prot: 4010 }],
  ["a port out of range", { port: 70_000 }],
  ["an unknown clock", { clock: "fast" }],
  ["a timing in words", { timing: "2 seconds" }],
  ["a retention in words", { idempotencyRetention: "a day" }],
  ["a customer without an id", { customers: [{ name: "Acme" }] }],
])("the config schema and the loader both reject %s", async (_name, config) => {
  const { validate } = await validator();
  expect(parseSimulatorConfig(config).ok).toBe(false);
  expect(validate(config)).toBe(false);
});
