/**
 * The public API's OpenAPI 3.1 document (`spec/openapi.yaml`), generated
 * from the route declarations: the three operations, the token operation,
 * every response each can give with an example, and the `webhooks` section.
 */
import { createRequire } from "node:module";
import { DEFAULT_ORDER_LIMITS, type OrderLimits } from "../public-schemas.ts";
import { apiDescription } from "../routes/public-descriptions.ts";
import { AIRTIME_STATUS_WEBHOOK, publicRoutes } from "../routes/public-routes.ts";
import { generateDocument, renderOpenApiYaml } from "./render-yaml.ts";

export const PUBLIC_SPEC_FILE = "spec/openapi.yaml";
export const DEFAULT_SERVER_URL = "http://127.0.0.1:4010";

const GENERATED_NOTE = "Generated from the zod schemas in src/contract by `npm run spec:generate`. Do not edit.";

const require = createRequire(import.meta.url);
const { version } = require("../../../package.json") as { version: string };

export interface PublicDocumentOptions {
  /** Order limits the document states (amount bounds, currencies); default the simulator's defaults. */
  readonly limits?: OrderLimits;
  /** The `servers` entry; default {@link DEFAULT_SERVER_URL}. */
  readonly serverUrl?: string;
}

/**
 * Builds the public document. `spec/openapi.yaml` is the default; a
 * simulator configured with other limits can describe itself with `limits`.
 *
 * @example
 * createPublicOpenApiDocument().paths?.["/v1/airtime"]?.post?.operationId; // "sendAirtime"
 */
export function createPublicOpenApiDocument(options: PublicDocumentOptions = {}) {
  const limits = options.limits ?? DEFAULT_ORDER_LIMITS;
  return generateDocument({
    info: {
      title: "Airtime top-up API",
      version,
      description: apiDescription(limits),
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [{ url: options.serverUrl ?? DEFAULT_SERVER_URL, description: "The simulator (`npm start`)." }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: "Airtime", description: "Orders and their status." },
      { name: "Balance", description: "Wallet balances." },
      { name: "Authentication", description: "Bearer tokens." },
    ],
    routes: publicRoutes(limits),
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

/** The text of `spec/openapi.yaml` (or of the document for other options). */
export function renderPublicOpenApiYaml(options: PublicDocumentOptions = {}): string {
  return renderOpenApiYaml(createPublicOpenApiDocument(options), GENERATED_NOTE);
}
