/**
 * The public API's OpenAPI 3.1 document (`spec/openapi.yaml`), generated
 * from the route declarations: the three operations, the token operation,
 * every response each can give with an example, and the `webhooks` section.
 */
import { packageVersion } from "../../package-root.ts";
import { DEFAULT_ORDER_LIMITS } from "../public-schemas.ts";
import { apiDescription } from "../routes/public-descriptions.ts";
import { AIRTIME_STATUS_WEBHOOK, publicRoutes } from "../routes/public-routes.ts";
import { generateDocument, renderOpenApiYaml } from "./render-yaml.ts";

export const PUBLIC_SPEC_FILE = "spec/openapi.yaml";
export const DEFAULT_SERVER_URL = "http://127.0.0.1:4010";

const GENERATED_NOTE = "Generated from the zod schemas in src/contract by `npm run spec:generate`. Do not edit.";

/** The text of `spec/openapi.yaml`. */
export function renderPublicOpenApiYaml(): string {
  return renderOpenApiYaml(publicOpenApiDocument(), GENERATED_NOTE);
}

/** The public API's document as an object: our spec, which a provider profile reshapes into its dialect's. */
export function publicOpenApiDocument() {
  return generateDocument({
    info: {
      title: "Airtime top-up API",
      version: packageVersion(),
      description: apiDescription(DEFAULT_ORDER_LIMITS),
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [{ url: DEFAULT_SERVER_URL, description: "The simulator (`npm start`)." }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: "Airtime", description: "Orders and their status." },
      { name: "Balance", description: "Wallet balances." },
      { name: "Authentication", description: "Bearer tokens." },
    ],
    routes: publicRoutes(DEFAULT_ORDER_LIMITS),
    webhooks: [AIRTIME_STATUS_WEBHOOK],
    components: {
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description: "The customer's token: a static token, or one issued by `POST /v1/auth/token`.",
        },
        basicAuth: {
          type: "http",
          scheme: "basic",
          description: "Customer id as the user name, API key as the password. Only for `POST /v1/auth/token`.",
        },
      },
    },
  });
}
