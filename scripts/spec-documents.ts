/**
 * Every generated file under `spec/`, in one list: `npm run spec:generate`
 * writes them, `npm run spec:check` fails when any differs from what the
 * schemas generate. Each entry renders its file's full text.
 *
 * It lives with the scripts, not in `src/contract/`: the admin document and
 * the scenario schema are rendered by the HTTP, simulator and scenario
 * layers, and the contract depends on none of them.
 */
import { ADMIN_SPEC_FILE, renderAdminOpenApiYaml } from "../src/http/admin-openapi.ts";
import { PUBLIC_SPEC_FILE, renderPublicOpenApiYaml } from "../src/contract/openapi/public-document.ts";
import type { SpecDocument } from "../src/contract/openapi/spec-sync.ts";
import { renderScenarioJsonSchema, SCENARIO_SCHEMA_FILE } from "../src/scenarios/json-schema.ts";
import { DEFAULT_ADMIN_SPECS } from "../src/simulator/default-plugins.ts";

export type { SpecDocument } from "../src/contract/openapi/spec-sync.ts";

export const SPEC_DOCUMENTS: SpecDocument[] = [
  { file: PUBLIC_SPEC_FILE, render: () => renderPublicOpenApiYaml() },
  { file: SCENARIO_SCHEMA_FILE, render: renderScenarioJsonSchema },
  { file: ADMIN_SPEC_FILE, render: () => renderAdminOpenApiYaml(DEFAULT_ADMIN_SPECS) },
];
