/**
 * Every body the harness reads goes through the provider profile: no file
 * under src/harness names a field of a provider's body. A read by name is a
 * field read straight off a response's `json` or a delivery's `payload`
 * (`response.json.code`, `delivery.payload?.reference`), a body cast to an
 * inline shape to read fields from (`response.json as { code?: unknown }`),
 * or a bracketed read of a field the profile describes (`body["status"]`).
 */
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const FIELDS = "id|reference|status|code|amount|message|data|error|type|final|balance|available";

const PATTERNS: readonly RegExp[] = [
  new RegExp(`\\.(json|payload)\\??\\.(${FIELDS})\\b`),
  /\.(json|payload)\)?\s+as\s+(\{|Readonly<Record|Record<)/,
  new RegExp(`\\b[a-z]\\w*\\??\\.?\\[["'](${FIELDS})["']\\]`),
];

/** Strict-only judgements of our own spec's shapes, where the field names are the rule. */
const ALLOWED: Readonly<Record<string, string>> = {
  "src/harness/conformance.ts": "strict: our spec's problem+json body repeats the HTTP status and a catalogued code",
  "src/harness/audit/webhook-judge.ts": "strict: our spec's webhook payload is compared with the lookup field by field",
};

function bodyReads(source: string): string[] {
  return source
    .split("\n")
    .map((line, index) => ({ line: line.trim(), number: index + 1 }))
    .filter(({ line }) => !line.startsWith("*") && !line.startsWith("//"))
    .filter(({ line }) => PATTERNS.some((pattern) => pattern.test(line)))
    .map(({ line, number }) => `${number}: ${line}`);
}

async function harnessFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) =>
      entry.isDirectory() ? harnessFiles(join(dir, entry.name)) : Promise.resolve([join(dir, entry.name)]),
    ),
  );
  return nested.flat().filter((file) => file.endsWith(".ts"));
}

test("no harness file reads a provider's body field by name: every read goes through the profile", async () => {
  const files = await harnessFiles(join(ROOT, "src/harness"));
  expect(files.length).toBeGreaterThan(40);
  const found: Record<string, string[]> = {};
  for (const file of files) {
    const name = relative(ROOT, file);
    if (ALLOWED[name] !== undefined) continue;
    const reads = bodyReads(await readFile(file, "utf8"));
    if (reads.length > 0) found[name] = reads;
  }
  expect(found).toEqual({});
});

test("the scan catches a planted read of each kind, and passes reads through the profile", () => {
  const planted = [
    "const code = (response.json as { code?: unknown } | undefined)?.code;",
    "const reference = delivery.payload?.reference;",
    'if (body["status"] === 0) return;',
    "const id = result.response.json.data;",
  ];
  for (const line of planted) expect(bodyReads(line), line).toHaveLength(1);
  const throughProfile = [
    "const code = r.provider.readErrorCode(response.json);",
    'const id = h.provider.readOrder("order", placed.response.json).id;',
    "const amount = toCents(payload.amount);",
  ];
  for (const line of throughProfile) expect(bodyReads(line), line).toEqual([]);
});
