/**
 * `npm run spec:generate` writes every generated file under `spec/`;
 * `npm run spec:check` runs it and fails when git sees any change there.
 */
import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { COMPARE_REPORT_SCHEMA_FILE, renderCompareReportJsonSchema } from "../src/compare/report-schema.ts";
import { ADMIN_SPEC_FILE, renderAdminOpenApiYaml } from "../src/contract/openapi/admin-document.ts";
import { PUBLIC_SPEC_FILE, renderPublicOpenApiYaml } from "../src/contract/openapi/public-document.ts";
import {
  PROVIDER_PROFILE_SCHEMA_FILE,
  renderProviderProfileJsonSchema,
} from "../src/contract/provider-profile/json-schema.ts";
import { renderScenarioJsonSchema, SCENARIO_SCHEMA_FILE } from "../src/scenarios/json-schema.ts";
import { CONFIG_SCHEMA_FILE, renderConfigJsonSchema } from "../src/simulator/config-json-schema.ts";
import { DEFAULT_ADMIN_SPECS } from "../src/simulator/default-plugins.ts";

const PROJECT_ROOT = new URL("..", import.meta.url);

const SPEC_FILES: Record<string, () => string> = {
  [PUBLIC_SPEC_FILE]: () => renderPublicOpenApiYaml(),
  [SCENARIO_SCHEMA_FILE]: renderScenarioJsonSchema,
  [ADMIN_SPEC_FILE]: () => renderAdminOpenApiYaml(DEFAULT_ADMIN_SPECS),
  [CONFIG_SCHEMA_FILE]: renderConfigJsonSchema,
  [PROVIDER_PROFILE_SCHEMA_FILE]: renderProviderProfileJsonSchema,
  [COMPARE_REPORT_SCHEMA_FILE]: renderCompareReportJsonSchema,
};

for (const [file, render] of Object.entries(SPEC_FILES)) {
  await writeFile(fileURLToPath(new URL(file, PROJECT_ROOT)), render(), "utf8");
  console.log(`wrote ${file}`);
}
