/**
 * A committed JSON Schema of `spec/`, compiled by ajv as an editor's
 * validator would (draft 2020-12, formats checked).
 */
import { readFile } from "node:fs/promises";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

export async function compileSpecSchema(
  file: string,
): Promise<{ schema: Record<string, unknown>; validate: ValidateFunction }> {
  const schema = JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
  // strictRequired and strictTypes are style lints on the schema, not rules of the draft.
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, strictTypes: false });
  addFormats.default(ajv);
  return { schema, validate: ajv.compile(schema) };
}
