/** The docs' magic accounts table never drifts from the code (spec:check keeps the JSON Schema in step). */
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { expect, test } from "vitest";
import { detectService, parseKenyanMobile } from "../../src/contract/operators.ts";
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

test("docs/scenarios.md lists every shipped scenario", async () => {
  const docs = await readFile("docs/scenarios.md", "utf8");
  for (const file of await listLibraryFiles()) expect(docs).toContain(`| \`${basename(file, ".yaml")}\` |`);
});
