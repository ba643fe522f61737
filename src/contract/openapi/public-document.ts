/**
 * The public API's OpenAPI 3.1 document (`spec/openapi.yaml`), built from the
 * zod schemas: the three operations, the token operation, every response
 * each can give with an example, and the `webhooks` section.
 */
import { createRequire } from "node:module";
import { type OpenAPIObject, OpenApiBuilder } from "openapi3-ts/oas31";
import { z } from "zod";
import {
  DEFAULT_ORDER_LIMITS,
  IdempotencyKeySchema,
  type OrderLimits,
  ReferenceSchema,
  ShortcodeSchema,
} from "../public-schemas.ts";
import { header, parameter } from "./content.ts";
import { apiDescription } from "./public-descriptions.ts";
import { EXAMPLE_IDEMPOTENCY_KEY, EXAMPLE_REFERENCE } from "./public-examples.ts";
import {
  balanceOperation,
  sendAirtimeOperation,
  tokenOperation,
  transactionStatusOperation,
  webhookOperation,
} from "./public-operations.ts";
import { renderOpenApiYaml } from "./render-yaml.ts";
import { createSchemaRegistry, type SchemaRegistry } from "./schema-registry.ts";

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
 * const { document } = createPublicOpenApiDocument();
 * document.paths?.["/v1/airtime"]?.post?.operationId; // "sendAirtime"
 */
export function createPublicOpenApiDocument(options: PublicDocumentOptions = {}): {
  document: OpenAPIObject;
  registry: SchemaRegistry;
} {
  const limits = options.limits ?? DEFAULT_ORDER_LIMITS;
  const registry = createSchemaRegistry();
  const builder = OpenApiBuilder.create()
    .addOpenApiVersion("3.1.0")
    .addInfo({
      title: "Airtime top-up API",
      version,
      description: apiDescription(limits),
      license: { name: "MIT", identifier: "MIT" },
    })
    .addServer({ url: options.serverUrl ?? DEFAULT_SERVER_URL, description: "The simulator (`npm start`)." })
    .addTag({ name: "Airtime", description: "Orders and their status." })
    .addTag({ name: "Balance", description: "Wallet balances." })
    .addTag({ name: "Authentication", description: "Bearer tokens." })
    .addSecurityScheme("bearerAuth", {
      type: "http",
      scheme: "bearer",
      description: "The customer's token: a static token, or one issued by `POST /v1/auth/token`.",
    })
    .addSecurityScheme("basicAuth", {
      type: "http",
      scheme: "basic",
      description: "Customer id as the user name, API key as the password. Only for `POST /v1/auth/token`.",
    })
    .addParameter(
      "IdempotencyKey",
      parameter(registry, IdempotencyKeySchema, {
        name: "Idempotency-Key",
        in: "header",
        description:
          "Makes the request retry-safe: 1–255 visible ASCII characters (a UUID v4 is recommended), kept 24 h, " +
          'scoped to the customer. An RFC 8941 quoted string (`"abc"`) is accepted too. The body field ' +
          "`idempotencyKey` is the alternative; when both are sent they must be equal.",
        example: EXAMPLE_IDEMPOTENCY_KEY,
      }),
    )
    .addParameter(
      "Reference",
      parameter(registry, ReferenceSchema, {
        name: "reference",
        in: "path",
        description: "The caller's reference of the order, percent-encoded.",
        example: EXAMPLE_REFERENCE,
      }),
    )
    .addParameter(
      "Shortcode",
      parameter(registry, ShortcodeSchema, {
        name: "shortcode",
        in: "query",
        description: "The wallet to report; omitted: the default wallet.",
        example: "600100",
      }),
    )
    .addHeader(
      "IdempotentReplayed",
      header(registry, z.literal("true"), {
        description: "`true` when the response replays an earlier request with the same idempotency key.",
        example: "true",
      }),
    )
    .addHeader(
      "RetryAfter",
      header(registry, z.string().regex(/^\d+$/), {
        description: "Seconds to wait before retrying, when the injected failure says so.",
        example: "1",
      }),
    )
    .addHeader(
      "WWWAuthenticateBearer",
      header(registry, z.string(), {
        description: "The bearer challenge.",
        required: true,
        example: 'Bearer realm="airtime"',
      }),
    )
    .addHeader(
      "WWWAuthenticateBasic",
      header(registry, z.string(), {
        description: "The Basic challenge.",
        required: true,
        example: 'Basic realm="airtime"',
      }),
    )
    .addPath("/v1/airtime", { post: sendAirtimeOperation(registry, limits) })
    .addPath("/v1/airtime/{reference}", { get: transactionStatusOperation(registry) })
    .addPath("/v1/balance", { get: balanceOperation(registry) })
    .addPath("/v1/auth/token", { post: tokenOperation(registry) })
    .addWebhook("airtimeStatus", { post: webhookOperation(registry) });

  const document = builder.getSpec();
  document.security = [{ bearerAuth: [] }];
  document.components = { ...document.components, schemas: registry.components() };
  return { document, registry };
}

/** The text of `spec/openapi.yaml` (or of the document for other options). */
export function renderPublicOpenApiYaml(options: PublicDocumentOptions = {}): string {
  return renderOpenApiYaml(createPublicOpenApiDocument(options).document, GENERATED_NOTE);
}
