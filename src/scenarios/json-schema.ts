/**
 * The JSON Schema of scenario files, generated from the zod schema and
 * committed as `spec/scenario.schema.json` (written by `npm run spec:generate`,
 * so `npm run spec:check` keeps it in sync). Editors use it for completion and
 * checks: the shipped scenario files name it in a `yaml-language-server` comment.
 */
import { renderJsonSchemaFile } from "../contract/json-schema-file.ts";
import { ScenarioFileSchema } from "./schema.ts";

export const SCENARIO_SCHEMA_FILE = "spec/scenario.schema.json";

export function renderScenarioJsonSchema(): string {
  return renderJsonSchemaFile(ScenarioFileSchema, SCENARIO_SCHEMA_FILE);
}
