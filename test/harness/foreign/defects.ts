/**
 * The foreign target's planted defects: each breaks one rule the interface
 * document states (never one of our spec's own decisions), so a harness run
 * under `--profile interface` with the foreign profile must catch it, and
 * with the named check.
 */
import type { CheckName } from "../../../src/harness/checks.ts";

/** The stated rule a defect breaks, by its place in the interface document. */
export type InterfaceRule =
  "§2.1" | "§3 rule 1" | "§3 rule 2" | "§3 rule 3" | "§4.3" | "§4.4" | "§5" | "§7" | "§8" | "isolation" | "no 5xx";

export interface DefectEntry {
  readonly name: string;
  readonly rule: InterfaceRule;
  readonly expectedCheck: CheckName;
  /**
   * Another check that judges the same broken rule and may see it first: a
   * run stops at its first failure, and which check meets a race first
   * depends on timing.
   */
  readonly alsoCaughtBy?: CheckName;
}

/** Each defect: the rule it breaks and the check that must catch it; the comment says what goes wrong. */
const DEFECTS = {
  /** The send answer writes its pending status as the word PENDING, not the number 0 (§2.3). */
  answer_status_as_word: { rule: "§3 rule 1", expectedCheck: "response_schema_conformance" },
  /** A retry with the same key answers a new transaction id. */
  replay_new_id: { rule: "§3 rule 2", expectedCheck: "idempotent_replay" },
  /** A retry answers the first status (0), not the latest. */
  replay_stale_status: { rule: "§3 rule 2", expectedCheck: "idempotent_replay" },
  /** A retry of a placed order answers without its id. */
  replay_missing_id: { rule: "§3 rule 2", expectedCheck: "idempotent_replay" },
  /** A retry executes the debit again (same id, debited twice). */
  replay_double_debit: { rule: "§4.4", expectedCheck: "no_double_charge" },
  /** Identical requests sent in parallel each place an order: the key is checked before an await and stored after it. */
  concurrent_duplicates: { rule: "§4.4", expectedCheck: "idempotent_replay", alsoCaughtBy: "no_double_charge" },
  /** A changed payload under a used key replays the order. */
  mismatch_accepted: { rule: "§4.4", expectedCheck: "payload_mismatch_rejected" },
  /** A changed payload gets 409 with code DUPLICATE_REQUEST. */
  mismatch_wrong_code: { rule: "§7", expectedCheck: "payload_mismatch_rejected" },
  /** A changed payload gets 422 with the right code. */
  mismatch_wrong_status: { rule: "§7", expectedCheck: "payload_mismatch_rejected" },
  /** An order without a currency, a field §2.1 requires, is placed as KES. */
  missing_currency_accepted: { rule: "§2.1", expectedCheck: "negative_input_rejected" },
  /** An idempotency key of exactly 255 characters is refused. */
  key_255_rejected: { rule: "§8", expectedCheck: "negative_input_rejected" },
  /** The insufficient-balance answer carries an id. */
  failed_order_keeps_id: { rule: "§7", expectedCheck: "response_schema_conformance" },
  /** An order refused for an insufficient balance is debited all the same. */
  failed_order_debited: { rule: "§7", expectedCheck: "no_double_charge" },
  /** A failed or timed-out order keeps its debit. */
  failure_not_refunded: { rule: "§4.3", expectedCheck: "no_double_charge" },
  /** A failed or timed-out order is refunded twice. */
  failure_refunded_twice: { rule: "§4.3", expectedCheck: "no_double_charge" },
  /** A reversed order keeps its debit. */
  reversal_not_refunded: { rule: "§4.3", expectedCheck: "no_double_charge" },
  /** The balance answer is cached for five seconds (stale). */
  balance_cached: { rule: "§4.3", expectedCheck: "no_double_charge" },
  /** Failed and timed-out orders get no webhook. */
  no_webhook_for_failures: { rule: "§3 rule 3", expectedCheck: "webhook_delivered" },
  /** A timed-out order's webhook says FAILED. */
  webhook_status_differs: { rule: "§3 rule 3", expectedCheck: "webhook_matches_lookup" },
  /** Every second lookup of a final order reads PENDING again. */
  final_back_to_pending: { rule: "§3 rule 3", expectedCheck: "status_monotonic" },
  /** A lookup finds another customer's reference. */
  cross_customer_lookup: { rule: "isolation", expectedCheck: "customer_isolation" },
  /** Idempotency keys are shared by all customers. */
  cross_customer_keys: { rule: "isolation", expectedCheck: "customer_isolation" },
  /** A request without Authorization acts as the first customer. */
  no_token_accepted: { rule: "§5", expectedCheck: "auth_required" },
  /** Any bearer token acts as the first customer. */
  wrong_token_accepted: { rule: "§5", expectedCheck: "auth_required" },
  /** An amount that is not a number gets a 500. */
  server_error_on_bad_amount: { rule: "no 5xx", expectedCheck: "never_server_error" },
} as const satisfies Record<string, Omit<DefectEntry, "name">>;

export type ForeignDefect = keyof typeof DEFECTS;

export const FOREIGN_DEFECTS: readonly (DefectEntry & { readonly name: ForeignDefect })[] = Object.entries(DEFECTS).map(
  ([name, entry]) => ({ name: name as ForeignDefect, ...entry }),
);
