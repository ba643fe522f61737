/**
 * The JSON Schemas committed under `spec/` (scenario files, the config
 * file), generated from their zod schemas by `npm run spec:generate`. Each
 * carries an `$id` where the published package serves it, so an editor can
 * fetch it from any project:
 * `# yaml-language-server: $schema=https://unpkg.com/airtime-harness/spec/scenario.schema.json`.
 */
import { z } from "zod";

/** Where the published package's files are served. */
const SCHEMA_BASE_URL = "https://unpkg.com/airtime-harness/";

/**
 * The JSON Schema of what a file may contain (the input side: durations and
 * timings are still text), with `$id` first.
 *
 * @example
 * await writeFile("spec/scenario.schema.json", renderJsonSchemaFile(ScenarioFileSchema, "spec/scenario.schema.json"));
 */
export function renderJsonSchemaFile(schema: z.ZodType, file: string): string {
  const generated = z.toJSONSchema(schema, { target: "draft-2020-12", io: "input", unrepresentable: "throw" });
  const { $schema, ...rest } = generated;
  return `${JSON.stringify({ $schema, $id: `${SCHEMA_BASE_URL}${file}`, ...rest }, null, 2)}\n`;
}
