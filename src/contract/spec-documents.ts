/**
 * Every generated file under `spec/`, in one list: `npm run spec:generate`
 * writes them, `npm run spec:check` fails when any differs from what the
 * schemas generate. Each entry renders its file's full text.
 */
import { ADMIN_SPEC_FILE, renderAdminOpenApiYaml } from "../http/admin-openapi.ts";
import { renderScenarioJsonSchema, SCENARIO_SCHEMA_FILE } from "../scenarios/json-schema.ts";
import { DEFAULT_ADMIN_SPECS } from "../simulator/default-plugins.ts";
import { PUBLIC_SPEC_FILE, renderPublicOpenApiYaml } from "./openapi/public-document.ts";

export interface SpecDocument {
  /** Path relative to the project root, e.g. `spec/openapi.yaml`. */
  readonly file: string;
  readonly render: () => string | Promise<string>;
}

export const SPEC_DOCUMENTS: SpecDocument[] = [
  { file: PUBLIC_SPEC_FILE, render: () => renderPublicOpenApiYaml() },
  { file: SCENARIO_SCHEMA_FILE, render: renderScenarioJsonSchema },
  { file: ADMIN_SPEC_FILE, render: () => renderAdminOpenApiYaml(DEFAULT_ADMIN_SPECS) },
];
