/** The docs' magic accounts table and the committed JSON Schema never drift from the code. */
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { expect, test } from "vitest";
import { detectService, parseKenyanMobile } from "../../src/contract/operators.ts";
import { renderScenarioJsonSchema, SCENARIO_SCHEMA_FILE } from "../../src/scenarios/json-schema.ts";
import { listLibraryFiles } from "../../src/scenarios/library.ts";
import { MAGIC_ACCOUNTS, renderMagicAccountsTable } from "../../src/scenarios/magic-accounts.ts";

test("docs/scenarios.md holds the magic accounts table generated from the code", async () => {
  const docs = await readFile("docs/scenarios.md", "utf8");
  expect(docs).toContain(renderMagicAccountsTable());
});

test("every magic account is a valid number of the operator it claims, and unique", () => {
  for (const entry of MAGIC_ACCOUNTS) {
    const parsed = parseKenyanMobile(entry.account);
    expect(parsed?.e164, entry.account).toBe(entry.account);
    expect(detectService(parsed?.nsn ?? ""), entry.account).toBe(entry.service);
  }
  expect(new Set(MAGIC_ACCOUNTS.map((entry) => entry.account)).size).toBe(MAGIC_ACCOUNTS.length);
});

test(`${SCENARIO_SCHEMA_FILE} is what the zod schema generates`, async () => {
  expect(await readFile(SCENARIO_SCHEMA_FILE, "utf8")).toBe(renderScenarioJsonSchema());
});

test("docs/scenarios.md lists every shipped scenario", async () => {
  const docs = await readFile("docs/scenarios.md", "utf8");
  for (const file of await listLibraryFiles()) expect(docs).toContain(`| \`${basename(file, ".yaml")}\` |`);
});
