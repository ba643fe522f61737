import { readdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { parse } from "yaml";
import { compileSpecSchema } from "../../support/json-schema-validator.ts";

const root = new URL("../../../", import.meta.url);

test("every example profile validates against the published JSON Schema", async () => {
  const { schema, validate } = await compileSpecSchema(
    fileURLToPath(new URL("spec/provider-profile.schema.json", root)),
  );
  expect(schema.$id).toBe("https://unpkg.com/airtime-harness/spec/provider-profile.schema.json");
  const files = (await readdir(new URL("examples/providers/", root))).filter((name) => /\.(ya?ml|json)$/.test(name));
  expect(files.length).toBeGreaterThan(0);
  for (const file of files) {
    const document: unknown = parse(await readFile(new URL(`examples/providers/${file}`, root), "utf8"));
    expect({ file, valid: validate(document), errors: validate.errors ?? [] }).toEqual({
      file,
      valid: true,
      errors: [],
    });
  }
  // The schema can fail: a wrong class is refused.
  expect(validate({ profile: 1, statuses: { table: [{ code: 0, class: "later" }] } })).toBe(false);
});
