/**
 * Strictness: which promises a run judges. `strict` (the default) judges
 * everything our spec decides. `interface` judges only what the provider
 * interface document states — each check names its sections — plus the
 * universal rules (no 5xx for client input, authentication required,
 * customer isolation, retry safety, the webhook agreeing with the lookup);
 * every detail the interface calls "not shown" is left free.
 */
import { type CheckName, CHECKS } from "./checks.ts";

export const STRICTNESS_LEVELS = ["strict", "interface"] as const;
export type Strictness = (typeof STRICTNESS_LEVELS)[number];

export interface CheckStrictness {
  readonly strictness: readonly Strictness[];
  /** Under `interface`: what of the check is judged, and the interface sections (or universal rule) it rests on. */
  readonly interface?: string;
}

export const CHECK_STRICTNESS: Readonly<Record<CheckName, CheckStrictness>> = {
  response_schema_conformance: {
    strictness: ["strict", "interface"],
    interface:
      "§2.3, §7: a send-airtime answer carries a string `reference`, a numeric `status` and, unless it failed, a string `id`; an order beyond the second customer's balance is a failed order (no `id`, the profile's http and errorCodes insufficientBalance where stated) and leaves no order; other bodies are not shown",
  },
  status_code_conformance: { strictness: ["strict"] },
  content_type_conformance: { strictness: ["strict"] },
  idempotent_replay: {
    strictness: ["strict", "interface"],
    interface: "§3 rule 2, §4.4: the same key and payload answer the same id with the latest status",
  },
  payload_mismatch_rejected: {
    strictness: ["strict", "interface"],
    interface: "§4.4, §7: the same key with another payload answers 409 idempotency_payload_mismatch",
  },
  no_double_charge: {
    strictness: ["strict", "interface"],
    interface:
      "§1, §4.4 (retry safety): after settling, the balance is the start minus every order not refunded (balance read through the provider profile); a failed order moves no money",
  },
  lookup_consistent: {
    strictness: ["strict", "interface"],
    interface:
      "§4.2: the lookup by reference finds the order placed (its id and reference, through the provider profile)",
  },
  status_monotonic: {
    strictness: ["strict", "interface"],
    interface:
      "§3: a final status is final — with the profile's status table, every move follows its transitions; without one, no final status reads as pending again",
  },
  webhook_delivered: {
    strictness: ["strict", "interface"],
    interface: "§1, §3 rule 3, §6: every final status is delivered by webhook",
  },
  webhook_signature_valid: {
    strictness: ["strict", "interface"],
    interface:
      "§6 and the profile's webhooks.signing: every delivery verifies under the stated scheme (skipped when the profile names none)",
  },
  webhook_matches_lookup: {
    strictness: ["strict", "interface"],
    interface: "§3 rule 3, §6: the webhook and the status endpoint agree on id, reference and status",
  },
  auth_required: {
    strictness: ["strict", "interface"],
    interface:
      "§5: without the customer's bearer token a request is refused: with the profile's http.unauthorized and errorCodes.unauthorized where it states them, else any 4xx",
  },
  customer_isolation: {
    strictness: ["strict", "interface"],
    interface: "§5 (universal): another customer's credential sees none of this customer's orders",
  },
  negative_input_rejected: {
    strictness: ["strict", "interface"],
    interface:
      "§2.1, §4.4, §8: an order missing a field §2.1 requires (service aside) is refused as the profile states (http and errorCodes invalidInput; else a 4xx or a failed order) and leaves no order; a key of up to 255 characters is accepted, a longer one refused; a wrong method gets the profile's http.wrongMethod where stated; other invalid input is our spec's to define",
  },
  never_server_error: { strictness: ["strict", "interface"], interface: "universal: no 5xx for any request" },
};

/** `contract --list-checks`: every check, the profiles it belongs to, and what `interface` judges of it. */
export function formatCheckList(): string {
  const names = Object.keys(CHECK_STRICTNESS) as CheckName[];
  const width = Math.max(...names.map((name) => name.length));
  return names
    .flatMap((name) => {
      const entry = CHECK_STRICTNESS[name];
      return [
        `${name.padEnd(width)}  [${entry.strictness.join(", ")}]  ${CHECKS[name].description}`,
        ...(entry.interface === undefined ? [] : [`${"".padEnd(width)}  interface: ${entry.interface}`]),
      ];
    })
    .join("\n");
}

export function checksOf(strictness: Strictness): ReadonlySet<CheckName> {
  return new Set(
    (Object.keys(CHECK_STRICTNESS) as CheckName[]).filter((name) =>
      CHECK_STRICTNESS[name].strictness.includes(strictness),
    ),
  );
}
