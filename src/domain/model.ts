/**
 * The simulator's records. Money is integer cents; times are milliseconds on
 * the simulator clock. Records are plain data so any Store adapter (memory
 * now, Redis later) can keep them as JSON.
 */
import type { Service } from "../contract/operators.ts";
import type { WebhookFaults } from "./faults.ts";

export interface Wallet {
  /** The customer's paybill/till; null for the default wallet. */
  readonly shortcode: string | null;
  readonly balanceCents: number;
  readonly currency: string;
}

export interface WebhookEndpoint {
  readonly url: string;
  /** `whsec_…` secrets; more than one during rotation, each signs every message. */
  readonly secrets: readonly string[];
  /** Set when the endpoint answered 410 Gone; no more deliveries until re-enabled. */
  readonly disabled?: boolean;
}

export interface Customer {
  readonly id: string;
  readonly name: string;
  /** Static bearer tokens (never logged). Tokens issued by /v1/auth/token are kept apart. */
  readonly tokens: readonly string[];
  /** Secret for HTTP Basic on POST /v1/auth/token. */
  readonly apiKey: string;
  readonly wallets: readonly Wallet[];
  readonly webhook?: WebhookEndpoint;
}

export interface StatusHistoryEntry {
  readonly status: number;
  readonly message: string;
  readonly at: number;
}

/** One step of an order's future: after `afterMs` (from the previous step), move to `status`. */
export interface PlannedTransition {
  readonly afterMs: number;
  readonly status: number;
  readonly message?: string;
}

/**
 * What will happen to an order after it is placed. An empty list means the
 * order stays pending until forced (a stuck order).
 */
export interface OutcomePlan {
  readonly steps: readonly PlannedTransition[];
}

export interface Order {
  readonly id: string;
  readonly customerId: string;
  readonly reference: string;
  readonly service: Service;
  /** E.164 recipient. */
  readonly account: string;
  readonly amountCents: number;
  readonly currency: string;
  readonly shortcode: string | null;
  readonly status: number;
  readonly message: string;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly history: readonly StatusHistoryEntry[];
  readonly idempotencyKey?: string;
  /** Webhook misbehaviour chosen by a scenario when the order was placed. */
  readonly webhookFaults?: WebhookFaults;
  /**
   * The order's planned future, kept with it so the scheduled `order.step`
   * jobs (payload `{orderId, stepIndex}`) stay plain data and survive in a
   * persistent store. Internal: not part of any HTTP body.
   */
  readonly plan?: OutcomePlan;
}

/** The normalised payload an idempotency key is bound to. */
export interface OrderFingerprint {
  readonly account: string;
  readonly service: Service;
  readonly amountCents: number;
  readonly currency: string;
  readonly reference: string;
  readonly shortcode: string | null;
}

export interface IdempotencyRecord {
  readonly customerId: string;
  readonly key: string;
  readonly fingerprint: string;
  /** Set once the order exists; absent while the first request is in flight. */
  readonly orderId?: string;
  readonly expiresAt: number;
}

/** A bearer token issued by `POST /v1/auth/token`; valid until `expiresAt`. */
export interface IssuedToken {
  readonly token: string;
  readonly customerId: string;
  readonly issuedAt: number;
  readonly expiresAt: number;
}

/** What an order keeps once evicted, and what the eviction scan reads of it. */
export interface CompactOrder {
  readonly id: string;
  readonly customerId: string;
  readonly reference: string;
  readonly status: number;
  readonly message: string;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/**
 * What is left of an order evicted under the order cap while its reference
 * (and idempotency key) is still retained: enough to answer a replay with the
 * same id and status, and a lookup with `order_evicted` instead of "no such
 * order". The key's payload fingerprint stays in its `IdempotencyRecord`.
 */
export interface EvictedOrder extends CompactOrder {
  /** Simulator-clock ms at which this record goes too (the end of the key's retention). */
  readonly keptUntil: number;
}

/**
 * What the eviction scan reads of an order: enough to judge it (final or
 * not, a guard's say by id) and to leave its `EvictedOrder`, without the
 * rest, which a store may keep packed.
 */
export interface EvictionCandidate extends CompactOrder {
  /** The order's version (its history's length), for the eviction's compare-and-set. */
  readonly version: number;
}
