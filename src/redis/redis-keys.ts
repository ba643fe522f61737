/**
 * Where the Redis store keeps what. A customer's own records share the hash
 * tag `{customerId}`, so every atomic step (a debit, an order insert, a key
 * claim, an eviction) touches one hash slot and the layout works on Redis
 * Cluster. The indexes across customers written on every order or token
 * are split into shards (`order-index.ts`, `issued-tokens.ts`); the few
 * written only by admin changes and evictions share the tag `{idx}`.
 */
export interface CustomerKeys {
  /** String: the customer as JSON, wallets without balances (they are in `wallets`). */
  readonly customer: string;
  /** Hash: `b:<shortcode>` → balance in cents, `c:<shortcode>` → currency (`-` names the default wallet). */
  readonly wallets: string;
  /** Hash: reference → order id (an evicted order's id while its record is kept). */
  readonly references: string;
  /** Hash: order id → order JSON. */
  readonly orders: string;
  /** Hash: order id → history length, the version compare-and-set checks. */
  readonly versions: string;
  /** Sorted set: order id by creation sequence (the customer's own counter). */
  readonly orderSequence: string;
  /** String: the customer's creation sequence counter, taken inside the placement's script. */
  readonly orderCounter: string;
  /** Hash: order id → what an evicted order left (JSON). */
  readonly evicted: string;
  /** Hash: order id → until when its evicted record is kept (simulator ms). */
  readonly evictedUntil: string;
  /** Hash: idempotency key → record JSON. */
  readonly idempotency: string;
  /** Sorted set: idempotency key by expiry, for the amortised sweep. */
  readonly idempotencyExpiry: string;
}

export interface SharedKeys {
  /** Set: every customer id. */
  readonly customers: string;
  /** Hash: SHA-256 hex of a static token → customer id. */
  readonly tokens: string;
  /** Sorted set: `customerId NUL orderId` of kept evicted records, by the time they end. */
  readonly evicted: string;
}

/** The wallet field suffix: the shortcode, or `-` for the default wallet (shortcodes are digits). */
export function walletField(shortcode: string | null): string {
  return shortcode ?? "-";
}

export function customerKeys(prefix: string, customerId: string): CustomerKeys {
  const base = `${prefix}{${customerId}}:`;
  return {
    customer: `${base}customer`,
    wallets: `${base}wallets`,
    references: `${base}references`,
    orders: `${base}orders`,
    versions: `${base}versions`,
    orderSequence: `${base}order-sequence`,
    orderCounter: `${base}order-counter`,
    evicted: `${base}evicted`,
    evictedUntil: `${base}evicted-until`,
    idempotency: `${base}idempotency`,
    idempotencyExpiry: `${base}idempotency-expiry`,
  };
}

export function sharedKeys(prefix: string): SharedKeys {
  return {
    customers: `${prefix}{idx}:customers`,
    tokens: `${prefix}{idx}:tokens`,
    evicted: `${prefix}{idx}:evicted`,
  };
}
