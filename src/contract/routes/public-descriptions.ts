/**
 * The prose of the public document: what the interface leaves "not shown"
 * and this API decides. Tables (errors, operator prefixes, limits) are built
 * from the same constants the code uses, so the text cannot drift from them.
 */
import { ERROR_CATALOGUE, type ErrorCode } from "../error-codes.ts";
import { describeOperatorPrefixes } from "../operators.ts";
import { DEFAULT_ORDER_LIMITS, type OrderLimits, REFERENCE_MAX_LENGTH } from "../public-schemas.ts";
import { EXAMPLE_WEBHOOK_SECRET } from "./public-examples.ts";

/** Error codes the public API can answer with (the rest belong to the admin API). */
export const PUBLIC_ERROR_CODES = [
  "missing_token",
  "invalid_token",
  "invalid_client",
  "validation_failed",
  "malformed_json",
  "unsupported_media_type",
  "payload_too_large",
  "not_found",
  "order_evicted",
  "method_not_allowed",
  "invalid_idempotency_key",
  "idempotency_key_conflict",
  "idempotency_payload_mismatch",
  "duplicate_reference",
  "service_undetectable",
  "unknown_shortcode",
  "rate_limited",
  "internal_error",
  "upstream_error",
  "service_unavailable",
  "store_unavailable",
  "store_not_replicated",
] as const satisfies readonly ErrorCode[];

/** Body size above which a request is refused with 413. */
export const BODY_LIMIT_KIB = 64;
const IDEMPOTENCY_RETENTION_HOURS = 24;

function errorTable(): string[] {
  return [
    "| code | HTTP | title |",
    "|---|---|---|",
    ...PUBLIC_ERROR_CODES.map(
      (code) => `| \`${code}\` | ${ERROR_CATALOGUE[code].status} | ${ERROR_CATALOGUE[code].title} |`,
    ),
  ];
}

export function apiDescription(limits: OrderLimits = DEFAULT_ORDER_LIMITS): string {
  const { minAmount, maxAmount, currencies } = limits;
  return [
    "The Kenyan airtime top-up API: place an order, look it up by reference, read the balance. " +
      "Orders complete asynchronously: the first answer is usually `0` Pending, the final status arrives by webhook " +
      "(see `webhooks`) and from `GET /v1/airtime/{reference}`. All operations are under the `/v1` version prefix.",
    "",
    "## Authentication",
    "",
    "Every operation needs `Authorization: Bearer <token>`. Tokens are the customer's static tokens, or come from " +
      "`POST /v1/auth/token` (HTTP Basic with the customer id and API key), which issues expiring tokens so a client " +
      "can test its refresh logic. A missing token is `missing_token`, an unknown or expired one `invalid_token`; both 401 " +
      "with `WWW-Authenticate: Bearer`. A customer sees only its own orders, keys, wallets and webhooks.",
    "",
    "## Errors",
    "",
    "Errors are RFC 9457 `application/problem+json` bodies with a flat, stable `code`; validation errors list each " +
      "offending field as `errors: [{pointer, detail}]` with a JSON Pointer such as `#/amount`. A code never changes " +
      "meaning. Anything a client sends gets a 4xx, never a 5xx; `429`, `500`, `502` and `503` are produced only when a " +
      "failure scenario injects them. Unknown paths are `not_found` (404); a known path with another method is " +
      `\`method_not_allowed\` (405, with \`Allow\`). Bodies above ${BODY_LIMIT_KIB} KiB are \`payload_too_large\` (413).`,
    "",
    ...errorTable(),
    "",
    "A **failed order** is not a problem body: insufficient balance answers 402 with the order envelope without `id` " +
      '(`{reference, status: 7, message, code: "insufficient_balance"}`). A request refused before an order exists ' +
      "(validation, authentication, 402) consumes neither its reference nor its idempotency key: fix the cause and retry.",
    "",
    "## Orders",
    "",
    `- \`amount\`: KES, a finite number from ${minAmount} to ${maxAmount} inclusive, at most 2 decimals (10.1 and 10.10 ` +
      `are the same amount). \`currency\`: ${currencies.map((c) => `\`${c}\``).join(", ")}. Bounds and currencies are ` +
      "configurable per simulator.",
    "- `account`: a Kenyan mobile number in any of four forms: `+254712345678`, `254712345678`, `0712345678`, " +
      "`712345678`. Responses and webhooks report it in E.164.",
    `- \`reference\`: 1–${REFERENCE_MAX_LENGTH} characters, no control characters, unique per customer ` +
      "(`duplicate_reference` otherwise). Any accepted reference can be looked up with `GET /v1/airtime/{reference}`, " +
      "percent-encoded.",
    "- `phone` is the customer's own phone, never the recipient: a body with `phone` but no `account` is " +
      "`validation_failed` with a detail saying so.",
    "",
    "## Service detection",
    "",
    "`service` is documented as required but may be omitted: the operator is then detected from the account's prefix " +
      "(`service_undetectable` when none of the five owns it). Kenya has number portability, so an explicit `service` " +
      "always wins. `network` is accepted as an alias of `service`; when both are sent they must be equal. Prefixes:",
    "",
    ...describeOperatorPrefixes().map((line) => `- ${line}`),
    "",
    "## Idempotency",
    "",
    'Send a key in the `Idempotency-Key` header (an RFC 8941 quoted string such as `"abc"` is accepted too) or in the ' +
      "body's `idempotencyKey`: 1–255 visible ASCII characters, a UUID v4 recommended. Both may be sent only when equal " +
      "(`idempotency_key_conflict` otherwise). Keys are scoped per customer.",
    "",
    "- Same key, same payload: 200 with the same `id` and the order's **latest** status and message, header " +
      "`Idempotent-Replayed: true`; nothing runs again. Payloads are compared after normalisation (account in E.164, " +
      "amount in cents, the resolved service and wallet), so `0712345678` and `+254712345678`, or `10.1` and `10.10`, " +
      "are the same payload.",
    "- Same key, different payload: 409 `idempotency_payload_mismatch`; nothing changes.",
    "- Concurrent requests with one key create one order and one debit; every response carries the same `id`.",
    `- Keys are kept ${IDEMPOTENCY_RETENTION_HOURS} hours (simulator clock, configurable); after that the key is free.`,
  ].join("\n");
}

export const SEND_AIRTIME_DESCRIPTION = [
  "Places an airtime order. Order of work: authenticate → validate → idempotency → balance check on the selected " +
    "wallet → debit → create the order at status `0` → schedule its lifecycle → `200 {id, reference, status: 0, " +
    'message: "Pending"}`.',
  "",
  "The final status arrives by webhook and from `GET /v1/airtime/{reference}`. A retry with the same idempotency " +
    "key returns the same `id` with the latest status. After a timeout or a 5xx, retry with the same key: the order " +
    "may have been committed.",
].join("\n");

export const TRANSACTION_STATUS_DESCRIPTION = [
  "The current status of the caller's order with this reference: the send-airtime envelope (`id`, `reference`, " +
    "`status`, `message`) plus the order's details and its status history, oldest first. Percent-encode the " +
    "reference. Another customer's reference is a 404, like a missing one.",
].join("\n");

export const BALANCE_DESCRIPTION = [
  "The available balance used for airtime orders, provider-like: `{status: 20, amount, currency}` for the default " +
    "wallet, or for the wallet named by `?shortcode=`, plus `shortcode` and every wallet of the customer in `wallets`.",
].join("\n");

export const TOKEN_DESCRIPTION = [
  "Issues an expiring bearer token for HTTP Basic credentials (customer id : API key), provider-like: " +
    "`{access_token, issued_at (Unix ms), expires_in (s)}`. Optional: static tokens work without it.",
].join("\n");

export const WEBHOOK_DESCRIPTION = [
  "Sent to the customer's webhook URL when an order reaches a final status, and again if a successful order is " +
    "reversed. The body is flat and provider-like; `final` tells whether `status` is final.",
  "",
  "**Signing** (Standard Webhooks 1.0): `webhook-signature` holds space-separated `v1,<base64>` signatures, one per " +
    "active secret (several during rotation), each an HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<raw body>` " +
    "keyed with the secret's bytes (`whsec_` + base64). `webhook-timestamp` is the wall-clock time of the attempt, even " +
    "on a virtual clock: reject it when it is more than 5 minutes from your clock. The npm package `standardwebhooks` " +
    "verifies all of this. The header examples below sign the `success` example body (as `JSON.stringify` writes " +
    `it) with the test secret \`${EXAMPLE_WEBHOOK_SECRET}\`, so a receiver can be tried on them.`,
  "",
  "**Delivery** is at least once: any 2xx is delivered; 410 disables the endpoint; anything else (3xx, 4xx, 5xx, a " +
    "timeout) is retried with jitter on a schedule (default: at once, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, " +
    "24 h), honouring `Retry-After` on 429 and 503. `webhook-id` is the same on every retry: deduplicate on it.",
].join("\n");

/** Note put on responses that only a failure scenario produces. */
export const SCENARIO_INJECTED_NOTE =
  "Scenario-injected: the simulator answers this only when a failure scenario says so, before the order is " +
  "committed or after it (then the order exists). Retry with the same idempotency key.";
