/**
 * The admin API's OpenAPI 3.1 document (`spec/admin.openapi.yaml`),
 * generated from the core admin routes plus the routes each plugin
 * declares for its own admin extension.
 */
import { ADMIN_ROUTES } from "../routes/admin-routes.ts";
import type { RouteDeclaration } from "../routes/route.ts";
import { DEFAULT_SERVER_URL } from "./public-document.ts";
import { generateDocument, renderOpenApiYaml } from "./render-yaml.ts";

export const ADMIN_SPEC_FILE = "spec/admin.openapi.yaml";

const GENERATED_NOTE =
  "Generated from the zod schemas in src/contract/admin-schemas.ts and the plugins' admin specs by `npm run spec:generate`. Do not edit.";

/**
 * @example
 * createAdminOpenApiDocument(DEFAULT_ADMIN_SPECS).paths?.["/_sim/clock/advance"]?.post?.operationId; // "advanceClock"
 */
export function createAdminOpenApiDocument(extensionRoutes: readonly (readonly RouteDeclaration[])[] = []) {
  return generateDocument({
    info: {
      title: "Airtime simulator admin API",
      version: "0.1.0",
      description: [
        "Controls the airtime simulator: customers and wallets, orders and forced transitions, the clock, the request",
        "journal, and a reset. Every operation needs the admin bearer token (printed by `airtime-harness serve`);",
        "a customer's token is refused with 403 `forbidden`. Errors are RFC 9457 problem+json with a stable `code`.",
        "Amounts are KES numbers.",
      ].join(" "),
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [{ url: DEFAULT_SERVER_URL, description: "The simulator (`npm start`)." }],
    security: [{ adminToken: [] }],
    tags: [{ name: "Admin", description: "Simulator control." }],
    routes: [...ADMIN_ROUTES, ...extensionRoutes.flat()],
    components: {
      securitySchemes: {
        adminToken: { type: "http", scheme: "bearer", description: "The simulator's admin token." },
      },
    },
  });
}

export function renderAdminOpenApiYaml(extensionRoutes: readonly (readonly RouteDeclaration[])[] = []): string {
  return renderOpenApiYaml(createAdminOpenApiDocument(extensionRoutes), GENERATED_NOTE);
}
