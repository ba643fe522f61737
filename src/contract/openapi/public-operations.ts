/**
 * The operations of the public document, one builder each: parameters,
 * request body and every response with its examples. Components they point
 * at (parameters, headers) are added by the document.
 */
import type { ResponseObject } from "openapi3-ts/oas31";
import type { z } from "zod";
import {
  BalanceResponseSchema,
  createSendAirtimeRequestSchema,
  FailedOrderResponseSchema,
  type OrderLimits,
  SendAirtimeResponseSchema,
  TokenResponseSchema,
  TransactionStatusResponseSchema,
} from "../public-schemas.ts";
import { WebhookHeadersSchema, WebhookPayloadSchema } from "../webhook-schemas.ts";
import { jsonBody, jsonResponse, parameter } from "./content.ts";
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
import type { SchemaRegistry } from "./schema-registry.ts";

export const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });
export const parameterRef = (name: string) => ({ $ref: `#/components/parameters/${name}` });

const BEARER_HEADERS = { 401: { "WWW-Authenticate": headerRef("WWWAuthenticateBearer") } };
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

export function sendAirtimeOperation(registry: SchemaRegistry, limits: OrderLimits) {
  const requestSchema = createSendAirtimeRequestSchema(limits);
  const scenarioNotes = Object.fromEntries([429, 500, 502, 503].map((status) => [status, SCENARIO_INJECTED_NOTE]));
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
  ];
  const responses: Record<string, ResponseObject> = {
    "200": jsonResponse(registry, SendAirtimeResponseSchema, SEND_AIRTIME_RESPONSE_EXAMPLES, {
      description:
        "The order: new (status `0` Pending), or replayed for a retry with the same key (same `id`, latest status).",
      headers: { "Idempotent-Replayed": headerRef("IdempotentReplayed") },
    }),
    ...problemResponses(registry, problems, {
      instance: "/v1/airtime",
      headers: {
        ...BEARER_HEADERS,
        429: { "Retry-After": headerRef("RetryAfter") },
        503: { "Retry-After": headerRef("RetryAfter") },
      },
      notes: scenarioNotes,
    }),
    "402": jsonResponse(registry, FailedOrderResponseSchema, FAILED_ORDER_EXAMPLES, {
      description:
        "The selected wallet cannot pay for the order: the failed-order envelope, without `id`. Neither the reference " +
        "nor the idempotency key is consumed.",
    }),
  };
  return {
    operationId: "sendAirtime",
    tags: ["Airtime"],
    summary: "Send airtime",
    description: SEND_AIRTIME_DESCRIPTION,
    parameters: [parameterRef("IdempotencyKey")],
    requestBody: jsonBody(registry, requestSchema, SEND_AIRTIME_REQUEST_EXAMPLES),
    responses: sortResponses(responses),
  };
}

export function transactionStatusOperation(registry: SchemaRegistry) {
  const instance = `/v1/airtime/${EXAMPLE_REFERENCE}`;
  const problems: ProblemCase[] = [
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
  ];
  return {
    operationId: "getTransactionStatus",
    tags: ["Airtime"],
    summary: "Transaction status by reference",
    description: TRANSACTION_STATUS_DESCRIPTION,
    parameters: [parameterRef("Reference")],
    responses: sortResponses({
      "200": jsonResponse(registry, TransactionStatusResponseSchema, TRANSACTION_STATUS_EXAMPLES, {
        description: "The order's current status and details.",
      }),
      ...problemResponses(registry, problems, { instance, headers: BEARER_HEADERS }),
    }),
  };
}

export function balanceOperation(registry: SchemaRegistry) {
  const problems: ProblemCase[] = [
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
  ];
  return {
    operationId: "getBalance",
    tags: ["Balance"],
    summary: "Balance",
    description: BALANCE_DESCRIPTION,
    parameters: [parameterRef("Shortcode")],
    responses: sortResponses({
      "200": jsonResponse(registry, BalanceResponseSchema, BALANCE_EXAMPLES, {
        description: "The selected wallet's balance and every wallet of the customer.",
      }),
      ...problemResponses(registry, problems, { instance: "/v1/balance", headers: BEARER_HEADERS }),
    }),
  };
}

export function tokenOperation(registry: SchemaRegistry) {
  const problems: ProblemCase[] = [
    {
      code: "invalid_client",
      when: "Basic credentials are missing, or the customer id and API key do not match.",
      detail: "The client credentials are not valid.",
    },
  ];
  return {
    operationId: "createToken",
    tags: ["Authentication"],
    summary: "Issue a bearer token",
    description: TOKEN_DESCRIPTION,
    security: [{ basicAuth: [] }],
    responses: sortResponses({
      "200": jsonResponse(registry, TokenResponseSchema, TOKEN_EXAMPLES, { description: "A new bearer token." }),
      ...problemResponses(registry, problems, {
        instance: "/v1/auth/token",
        headers: { 401: { "WWW-Authenticate": headerRef("WWWAuthenticateBasic") } },
      }),
    }),
  };
}

export function webhookOperation(registry: SchemaRegistry) {
  const shape = WebhookHeadersSchema.shape;
  const names = Object.keys(shape) as (keyof typeof shape)[];
  return {
    operationId: "airtimeStatusWebhook",
    tags: ["Airtime"],
    summary: "An order reached a final status (or was reversed)",
    description: WEBHOOK_DESCRIPTION,
    parameters: names.map((name) =>
      parameter(registry, shape[name], {
        name,
        in: "header",
        required: true,
        example: WEBHOOK_HEADER_EXAMPLES[name],
      }),
    ),
    requestBody: jsonBody(registry, WebhookPayloadSchema, WEBHOOK_EXAMPLES, { io: "output" }),
    responses: {
      "200": { description: "Any 2xx: delivered; no more attempts." },
      "410": { description: "Gone: the endpoint is disabled; no more deliveries until it is re-enabled." },
      default: {
        description:
          "Anything else (or no answer within the attempt timeout): the attempt failed and is retried on the " +
          "schedule; `Retry-After` on 429 and 503 is honoured.",
      },
    },
  };
}

function sortResponses(responses: Record<string, ResponseObject>): Record<string, ResponseObject> {
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}
