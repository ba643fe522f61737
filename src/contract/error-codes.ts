/**
 * The stable error codes: code, HTTP status and title, defined once and
 * referenced everywhere (problem+json bodies, the OpenAPI document, tests).
 * A code never changes meaning; new failures get new codes.
 */
export const ERROR_CATALOGUE = {
  missing_token: { status: 401, title: "Missing bearer token" },
  invalid_token: { status: 401, title: "Invalid or expired bearer token" },
  invalid_client: { status: 401, title: "Invalid client credentials" },
  forbidden: { status: 403, title: "Not allowed with this token" },
  validation_failed: { status: 400, title: "Request validation failed" },
  malformed_json: { status: 400, title: "Malformed JSON body" },
  unsupported_media_type: { status: 415, title: "Unsupported media type" },
  payload_too_large: { status: 413, title: "Payload too large" },
  not_found: { status: 404, title: "Not found" },
  order_evicted: { status: 410, title: "Order evicted under the order cap" },
  method_not_allowed: { status: 405, title: "Method not allowed" },
  invalid_idempotency_key: { status: 400, title: "Invalid idempotency key" },
  idempotency_key_conflict: { status: 400, title: "Header and body idempotency keys differ" },
  idempotency_payload_mismatch: {
    status: 409,
    title: "Idempotency key reused with a different payload",
  },
  duplicate_reference: { status: 409, title: "Reference already used" },
  service_undetectable: { status: 400, title: "Service cannot be detected from the account" },
  unknown_shortcode: { status: 400, title: "Unknown shortcode" },
  invalid_transition: { status: 409, title: "Status transition not allowed" },
  webhook_endpoint_disabled: { status: 409, title: "Webhook endpoint disabled" },
  webhook_endpoint_missing: { status: 409, title: "No webhook endpoint configured" },
  already_exists: { status: 409, title: "Already exists" },
  clock_not_virtual: { status: 409, title: "The simulator clock is not virtual" },
  unknown_scenario: { status: 400, title: "Unknown scenario" },
  rate_limited: { status: 429, title: "Too many requests" },
  too_many_attempts: { status: 429, title: "Too many failed authentication attempts" },
  upstream_error: { status: 502, title: "Upstream operator error" },
  service_unavailable: { status: 503, title: "Service unavailable" },
  store_unavailable: { status: 503, title: "Store unavailable" },
  store_not_replicated: { status: 503, title: "Store not replicated" },
  internal_error: { status: 500, title: "Internal error" },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_CATALOGUE, value);
}
