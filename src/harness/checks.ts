/**
 * The catalogue of contract checks: a stable name and a one-line description
 * for each, defined once. `--help`, the docs, the reports and every assertion
 * refer to checks by these names; a name never changes meaning.
 */
export const CHECKS = {
  response_schema_conformance: {
    description:
      "Every response body matches the contract's schema for its endpoint and status (order, failed order, status, balance, problem).",
  },
  status_code_conformance: {
    description:
      "Every HTTP status is one the contract documents for the endpoint and the request; a problem's `status` and `code` agree with it.",
  },
  content_type_conformance: {
    description: "Order, status and balance bodies are application/json; errors are application/problem+json.",
  },
  idempotent_replay: {
    description:
      "A retry with the same key and payload returns 200 with the same id and the latest status — also after a lost response.",
  },
  payload_mismatch_rejected: {
    description: "Reusing a key with a different payload returns 409 idempotency_payload_mismatch and changes nothing.",
  },
  no_double_charge: {
    description:
      "The balance is the start minus the amounts of orders not refunded: one debit per order, whatever the retries.",
  },
  lookup_consistent: {
    description:
      "GET /v1/airtime/{reference} returns the order as placed (id, amount, account, service) with the status the model expects.",
  },
  status_monotonic: {
    description:
      "An order's status never moves back: once final it stays final (only Success → Reversed), across lookups and replays.",
  },
  webhook_delivered: {
    description: "Every final status reaches the webhook receiver within the timeout.",
  },
  webhook_signature_valid: {
    description: "Every webhook carries a valid Standard Webhooks signature for the configured secret.",
  },
  webhook_matches_lookup: {
    description: "A webhook's id, reference, status and amount agree with GET /v1/airtime/{reference}.",
  },
  auth_required: {
    description:
      "No token or a wrong token gets 401 problem+json (missing_token / invalid_token) with WWW-Authenticate: Bearer, on every endpoint.",
  },
  customer_isolation: {
    description:
      "Another customer's token sees none of this customer's orders (404) and idempotency keys are scoped per customer.",
  },
  negative_input_rejected: {
    description:
      "Invalid bodies, malformed JSON and keys over 255 characters get a 4xx problem with a stable code and create no order; a 255-character key is accepted.",
  },
  never_server_error: {
    description: "No request the harness sends, valid or not, gets a 5xx response.",
  },
} as const satisfies Record<string, { readonly description: string }>;

export type CheckName = keyof typeof CHECKS;

export const CHECK_NAMES = Object.keys(CHECKS) as CheckName[];

function isCheckName(value: string): value is CheckName {
  return Object.hasOwn(CHECKS, value);
}

export type CheckSelection =
  { readonly ok: true; readonly checks: ReadonlySet<CheckName> } | { readonly ok: false; readonly error: string };

/**
 * The checks a run asserts: all of them, or those in `include`, minus those
 * in `exclude`. Unknown names are an error, not silently ignored, so a typo
 * never turns a check off.
 *
 * @example
 * selectChecks({ exclude: ["webhook_delivered"] }); // every check but one
 */
export function selectChecks({
  include = [],
  exclude = [],
}: {
  readonly include?: readonly string[];
  readonly exclude?: readonly string[];
}): CheckSelection {
  const unknown = [...include, ...exclude].filter((name) => !isCheckName(name));
  if (unknown.length > 0) {
    return { ok: false, error: `unknown check(s): ${unknown.join(", ")} (known: ${CHECK_NAMES.join(", ")})` };
  }
  const excluded = new Set(exclude);
  const checks = new Set(
    (include.length === 0 ? CHECK_NAMES : include).filter(
      (name): name is CheckName => isCheckName(name) && !excluded.has(name),
    ),
  );
  return { ok: true, checks };
}

/** `--help` text: one line per check. */
export function describeChecks(indent = "  "): string {
  const width = Math.max(...CHECK_NAMES.map((name) => name.length));
  return CHECK_NAMES.map((name) => `${indent}${name.padEnd(width)}  ${CHECKS[name].description}`).join("\n");
}
