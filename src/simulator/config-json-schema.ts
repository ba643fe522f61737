/**
 * The JSON Schema of `serve --config` files, generated from the one config
 * schema and committed as `spec/config.schema.json` (`npm run spec:generate`).
 */
import { renderJsonSchemaFile } from "../contract/json-schema-file.ts";
import { SimulatorConfigSchema } from "./config-schema.ts";

export const CONFIG_SCHEMA_FILE = "spec/config.schema.json";

export function renderConfigJsonSchema(): string {
  return renderJsonSchemaFile(SimulatorConfigSchema, CONFIG_SCHEMA_FILE);
}
