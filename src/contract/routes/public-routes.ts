/**
 * The public API's routes and its webhook, each declared once: the document
 * in `spec/openapi.yaml` is generated from them, and the HTTP layer
 * validates with their schemas.
 */
import { z } from "zod";
import type { ZodOpenApiResponseObject } from "zod-openapi";
import {
  BalanceResponseSchema,
  createSendAirtimeRequestSchema,
  FailedOrderResponseSchema,
  IdempotencyKeySchema,
  type OrderLimits,
  ReferenceSchema,
  SendAirtimeResponseSchema,
  ShortcodeSchema,
  TokenResponseSchema,
  TransactionStatusResponseSchema,
} from "../public-schemas.ts";
import { WebhookHeadersSchema, WebhookPayloadSchema } from "../webhook-schemas.ts";
import { type ProblemCase, problemResponses } from "./problems.ts";
import {
  BALANCE_DESCRIPTION,
  BODY_LIMIT_KIB,
  SCENARIO_INJECTED_NOTE,
  SEND_AIRTIME_DESCRIPTION,
  TOKEN_DESCRIPTION,
  TRANSACTION_STATUS_DESCRIPTION,
  WEBHOOK_DESCRIPTION,
} from "./public-descriptions.ts";
import {
  BALANCE_EXAMPLES,
  EXAMPLE_IDEMPOTENCY_KEY,
  EXAMPLE_REFERENCE,
  FAILED_ORDER_EXAMPLES,
  invalidAmountRequest,
  SEND_AIRTIME_REQUEST_EXAMPLES,
  SEND_AIRTIME_RESPONSE_EXAMPLES,
  TOKEN_EXAMPLES,
  TRANSACTION_STATUS_EXAMPLES,
  WEBHOOK_EXAMPLES,
  WEBHOOK_HEADER_EXAMPLES,
} from "./public-examples.ts";
import type { RouteDeclaration } from "./route.ts";

const IDEMPOTENCY_KEY_HEADER = IdempotencyKeySchema.optional().meta({
  param: {
    id: "IdempotencyKey",
    name: "Idempotency-Key",
    in: "header",
    description:
      "Makes the request retry-safe: 1–255 visible ASCII characters (a UUID v4 is recommended), kept 24 h, " +
      'scoped to the customer. An RFC 8941 quoted string (`"abc"`) is accepted too. The body field ' +
      "`idempotencyKey` is the alternative; when both are sent they must be equal.",
    required: false,
    example: EXAMPLE_IDEMPOTENCY_KEY,
  },
});

/** The path parameter of `GET /v1/airtime/{reference}`: no order can carry a reference this refuses. */
export const REFERENCE_PARAMETER = ReferenceSchema.meta({
  param: {
    id: "Reference",
    name: "reference",
    in: "path",
    description: "The caller's reference of the order, percent-encoded.",
    example: EXAMPLE_REFERENCE,
  },
});

const SHORTCODE_QUERY = ShortcodeSchema.optional().meta({
  param: {
    id: "Shortcode",
    name: "shortcode",
    in: "query",
    description: "The wallet to report; omitted: the default wallet.",
    required: false,
    example: "600100",
  },
});

const IDEMPOTENT_REPLAYED = z
  .literal("true")
  .optional()
  .meta({
    header: {
      id: "IdempotentReplayed",
      description: "`true` when the response replays an earlier request with the same idempotency key.",
      required: false,
      example: "true",
    },
  });

const RETRY_AFTER = z
  .string()
  .regex(/^\d+$/)
  .optional()
  .meta({
    header: {
      id: "RetryAfter",
      description: "Seconds to wait before retrying, when the injected failure says so.",
      required: false,
      example: "1",
    },
  });

const challenge = (id: string, description: string, example: string) =>
  z.object({ "WWW-Authenticate": z.string().meta({ header: { id, description, example } }) });

const BEARER_CHALLENGE = challenge("WWWAuthenticateBearer", "The bearer challenge.", 'Bearer realm="airtime"');
const BASIC_CHALLENGE = challenge("WWWAuthenticateBasic", "The Basic challenge.", 'Basic realm="airtime"');

const UNAUTHORISED: readonly ProblemCase[] = [
  { code: "missing_token", when: "No `Authorization: Bearer` header.", detail: "Send Authorization: Bearer <token>." },
  {
    code: "invalid_token",
    when: "The token is unknown or expired.",
    detail: "The bearer token is unknown or expired.",
  },
];

/** The `validation_failed` example carries the issues zod really reports for a too-small amount. */
function amountValidationCase(requestSchema: z.ZodType, limits: OrderLimits): ProblemCase {
  const result = requestSchema.safeParse(invalidAmountRequest(limits.minAmount));
  if (result.success) throw new Error("the invalid-amount example parses");
  const errors = result.error.issues.map((issue) => ({
    pointer: ["#", ...issue.path.map(String)].join("/"),
    detail: issue.message,
  }));
  return {
    code: "validation_failed",
    when:
      "A field breaks its rule (one `errors` entry per field), `network` differs from `service`, or `phone` is sent " +
      "without `account`.",
    detail: `The request body failed validation — ${errors.map((e) => `${e.pointer}: ${e.detail}`).join("; ")}.`,
    errors,
  };
}

function sortByStatus(responses: Record<string, ZodOpenApiResponseObject>) {
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}

/** `POST /v1/airtime`; its body schema (and so the document) follows the simulator's order limits. */
export function sendAirtimeRoute(limits: OrderLimits) {
  const requestSchema = createSendAirtimeRequestSchema(limits);
  const problems: ProblemCase[] = [
    amountValidationCase(requestSchema, limits),
    { code: "malformed_json", when: "The body is not JSON.", detail: "The request body is not valid JSON." },
    {
      code: "invalid_idempotency_key",
      when: "The `Idempotency-Key` header or `idempotencyKey` is not 1–255 visible ASCII characters.",
      detail: "The Idempotency-Key header is not valid. An idempotency key is 1–255 visible ASCII characters.",
    },
    {
      code: "idempotency_key_conflict",
      when: "The header and the body carry different keys.",
      detail: "The Idempotency-Key header and the body's idempotencyKey differ; send one, or the same value in both.",
    },
    {
      code: "service_undetectable",
      when: "`service` is omitted and none of the five operators owns the account's prefix.",
      detail: "No operator of the five owns +254744123456; send `service`.",
    },
    {
      code: "unknown_shortcode",
      when: "`shortcode` names none of the customer's wallets.",
      detail: "The customer has no wallet with shortcode 999999.",
    },
    ...UNAUTHORISED,
    {
      code: "idempotency_payload_mismatch",
      when: "The idempotency key was used with a different payload; nothing changed.",
      detail: "The idempotency key was already used with a different payload.",
    },
    {
      code: "duplicate_reference",
      when: "The customer already placed an order with this reference (without this idempotency key).",
      detail: "The reference ORDER-2026-0001 is already used.",
    },
    {
      code: "payload_too_large",
      when: `The body is larger than ${BODY_LIMIT_KIB} KiB.`,
      detail: `The request body is larger than ${BODY_LIMIT_KIB} KiB.`,
    },
    {
      code: "unsupported_media_type",
      when: "The body is not sent as `application/json`.",
      detail: 'Content-Type "text/plain" is not accepted; send application/json.',
    },
    { code: "rate_limited", when: "Injected by a scenario.", detail: "Too many requests; retry after 1 s." },
    { code: "internal_error", when: "Injected by a scenario.", detail: "Injected failure." },
    { code: "upstream_error", when: "Injected by a scenario.", detail: "The operator did not answer." },
    { code: "service_unavailable", when: "Injected by a scenario.", detail: "Try again later." },
    {
      code: "store_unavailable",
      when: "The simulator's Redis store cannot be reached; nothing was placed or debited.",
      detail: "The simulator's store (Redis) cannot be reached; retry shortly.",
    },
    {
      code: "store_not_replicated",
      when:
        "With `--redis-durability replicated`, no Redis replica acknowledged the order in time; " +
        "a retry with the same idempotency key answers the same order once one does.",
      detail: "No Redis replica acknowledged the write in time; retry shortly.",
    },
  ];
  const retryAfter = z.object({ "Retry-After": RETRY_AFTER });
  return {
    method: "post",
    path: "/v1/airtime",
    operation: {
      operationId: "sendAirtime",
      tags: ["Airtime"],
      summary: "Send airtime",
      description: SEND_AIRTIME_DESCRIPTION,
      parameters: [IDEMPOTENCY_KEY_HEADER],
      requestBody: {
        required: true,
        content: { "application/json": { schema: requestSchema, examples: SEND_AIRTIME_REQUEST_EXAMPLES } },
      },
      responses: sortByStatus({
        "200": {
          description:
            "The order: new (status `0` Pending), or replayed for a retry with the same key (same `id`, latest status).",
          headers: z.object({ "Idempotent-Replayed": IDEMPOTENT_REPLAYED }),
          content: {
            "application/json": { schema: SendAirtimeResponseSchema, examples: SEND_AIRTIME_RESPONSE_EXAMPLES },
          },
        },
        ...problemResponses(problems, {
          instance: "/v1/airtime",
          headers: { 401: BEARER_CHALLENGE, 429: retryAfter, 503: retryAfter },
          notes: Object.fromEntries([429, 500, 502, 503].map((status) => [status, SCENARIO_INJECTED_NOTE])),
        }),
        "402": {
          description:
            "The selected wallet cannot pay for the order: the failed-order envelope, without `id`. Neither the " +
            "reference nor the idempotency key is consumed.",
          content: { "application/json": { schema: FailedOrderResponseSchema, examples: FAILED_ORDER_EXAMPLES } },
        },
      }),
    },
  } satisfies RouteDeclaration;
}

const TRANSACTION_STATUS_ROUTE = {
  method: "get",
  path: "/v1/airtime/{reference}",
  operation: {
    operationId: "getTransactionStatus",
    tags: ["Airtime"],
    summary: "Transaction status by reference",
    description: TRANSACTION_STATUS_DESCRIPTION,
    parameters: [REFERENCE_PARAMETER],
    responses: {
      "200": {
        description: "The order's current status and details.",
        content: {
          "application/json": { schema: TransactionStatusResponseSchema, examples: TRANSACTION_STATUS_EXAMPLES },
        },
      },
      ...problemResponses(
        [
          {
            code: "validation_failed",
            when: "The reference breaks the reference rules, so no order can have it.",
            detail: "The reference is not valid: #/reference Too big: expected string to have <=100 characters.",
            errors: [{ pointer: "#/reference", detail: "Too big: expected string to have <=100 characters" }],
          },
          ...UNAUTHORISED,
          {
            code: "not_found",
            when: "The customer has no order with this reference.",
            detail: `No order with reference ${EXAMPLE_REFERENCE}.`,
          },
          {
            code: "order_evicted",
            when:
              "The order existed but was evicted under the simulator's order cap (`--max-orders`); " +
              "the answer stays 410 until the key retention ends. A replay of its idempotency key still answers.",
            detail: `The order with reference ${EXAMPLE_REFERENCE} was evicted under the order cap; it ended with status 20.`,
          },
        ],
        { instance: `/v1/airtime/${EXAMPLE_REFERENCE}`, headers: { 401: BEARER_CHALLENGE } },
      ),
    },
  },
} satisfies RouteDeclaration;

const BALANCE_ROUTE = {
  method: "get",
  path: "/v1/balance",
  operation: {
    operationId: "getBalance",
    tags: ["Balance"],
    summary: "Balance",
    description: BALANCE_DESCRIPTION,
    parameters: [SHORTCODE_QUERY],
    responses: {
      "200": {
        description: "The selected wallet's balance and every wallet of the customer.",
        content: { "application/json": { schema: BalanceResponseSchema, examples: BALANCE_EXAMPLES } },
      },
      ...problemResponses(
        [
          {
            code: "validation_failed",
            when: "`shortcode` is empty or longer than 32 characters.",
            detail: "The query is not valid: #/shortcode Too big: expected string to have <=32 characters.",
            errors: [{ pointer: "#/shortcode", detail: "Too big: expected string to have <=32 characters" }],
          },
          {
            code: "unknown_shortcode",
            when: "`shortcode` names none of the customer's wallets.",
            detail: "The customer has no wallet with shortcode 999999.",
          },
          ...UNAUTHORISED,
        ],
        { instance: "/v1/balance", headers: { 401: BEARER_CHALLENGE } },
      ),
    },
  },
} satisfies RouteDeclaration;

const TOKEN_ROUTE = {
  method: "post",
  path: "/v1/auth/token",
  operation: {
    operationId: "createToken",
    tags: ["Authentication"],
    summary: "Issue a bearer token",
    description: TOKEN_DESCRIPTION,
    security: [{ basicAuth: [] }],
    responses: {
      "200": {
        description: "A new bearer token.",
        content: { "application/json": { schema: TokenResponseSchema, examples: TOKEN_EXAMPLES } },
      },
      ...problemResponses(
        [
          {
            code: "invalid_client",
            when: "Basic credentials are missing, or the customer id and API key do not match.",
            detail: "The client credentials are not valid.",
          },
        ],
        { instance: "/v1/auth/token", headers: { 401: BASIC_CHALLENGE } },
      ),
    },
  },
} satisfies RouteDeclaration;

/** Every public route, in the document's order. */
export function publicRoutes(limits: OrderLimits): RouteDeclaration[] {
  return [sendAirtimeRoute(limits), TRANSACTION_STATUS_ROUTE, BALANCE_ROUTE, TOKEN_ROUTE];
}

/** What the simulator POSTs to a customer's webhook URL (the document's `webhooks` section). */
export const AIRTIME_STATUS_WEBHOOK = {
  method: "post",
  path: "airtimeStatus",
  operation: {
    operationId: "airtimeStatusWebhook",
    tags: ["Airtime"],
    summary: "An order reached a final status (or was reversed)",
    description: WEBHOOK_DESCRIPTION,
    parameters: Object.entries(WebhookHeadersSchema.shape).map(([name, schema]) =>
      schema.meta({
        param: { name, in: "header", example: WEBHOOK_HEADER_EXAMPLES[name as keyof typeof WEBHOOK_HEADER_EXAMPLES] },
      }),
    ),
    requestBody: {
      required: true,
      // The simulator writes this body, so it is described as what a parser of it produces.
      content: { "application/json": { schema: WebhookPayloadSchema, examples: WEBHOOK_EXAMPLES } },
    },
    responses: {
      "200": { description: "Any 2xx: delivered; no more attempts." },
      "410": { description: "Gone: the endpoint is disabled; no more deliveries until it is re-enabled." },
      default: {
        description:
          "Anything else (or no answer within the attempt timeout): the attempt failed and is retried on the " +
          "schedule; `Retry-After` on 429 and 503 is honoured.",
      },
    },
  },
} satisfies RouteDeclaration;
