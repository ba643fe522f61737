/**
 * The published JSON Schema of provider profile files, generated from the
 * zod schema and committed as `spec/provider-profile.schema.json`
 * (`npm run spec:generate`), so editors validate a profile as it is written.
 */
import { renderJsonSchemaFile } from "../json-schema-file.ts";
import { ProviderProfileSchema } from "./schema.ts";

export const PROVIDER_PROFILE_SCHEMA_FILE = "spec/provider-profile.schema.json";

export function renderProviderProfileJsonSchema(): string {
  return renderJsonSchemaFile(ProviderProfileSchema, PROVIDER_PROFILE_SCHEMA_FILE);
}
