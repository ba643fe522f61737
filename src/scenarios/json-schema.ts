/**
 * The JSON Schema of scenario files, generated from the zod schema and
 * committed as `spec/scenario.schema.json` (written by `npm run spec:generate`,
 * so `npm run spec:check` keeps it in sync). Editors use it for completion and
 * checks: put `# yaml-language-server: $schema=<path>/scenario.schema.json`
 * at the top of a scenario file.
 */
import { z } from "zod";
import { ScenarioFileSchema } from "./schema.ts";

export const SCENARIO_SCHEMA_FILE = "spec/scenario.schema.json";

function buildScenarioJsonSchema(): Record<string, unknown> {
  // What a file may contain (the input side: timings are still text).
  const generated = z.toJSONSchema(ScenarioFileSchema, {
    target: "draft-2020-12",
    io: "input",
    unrepresentable: "throw",
  }) as Record<string, unknown>;
  return generated;
}

/**
 * @example
 * await writeFile("spec/scenario.schema.json", renderScenarioJsonSchema());
 */
export function renderScenarioJsonSchema(): string {
  return `${JSON.stringify(buildScenarioJsonSchema(), null, 2)}\n`;
}
