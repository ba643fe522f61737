/**
 * Where the Redis store keeps what. A customer's own records share the hash
 * tag `{customerId}`, so every atomic step (a debit, an order insert, a key
 * claim, an eviction) touches one hash slot and the layout works on Redis
 * Cluster. The indexes across customers written on every order or token
 * are split into shards (`order-index.ts`, `issued-tokens.ts`); the few
 * written only by admin changes and evictions share the tag `{idx}`. This
 * is layout 2, recorded in Redis (`key-layout.ts`).
 */
export interface CustomerKeys {
  /**
   * Hash: `record` → the customer as JSON (wallets without balances),
   * `b:<shortcode>` → balance in cents, `c:<shortcode>` → currency (`-`
   * names the default wallet). One hash, so the customer is read with one
   * HGETALL and a placement reads its wallet from the same key.
   */
  readonly customer: string;
  /**
   * Hash: the customer's orders with what points at them, one field each:
   * `o:<order id>` → the order as JSON (its version is its history's
   * length, read in Lua with `cjson`), `r:<reference>` → order id (an
   * evicted order's id while its record is kept), `k:<idempotency key>` →
   * the key's record JSON, and `n` → the customer's order counter (its
   * orders' creation sequence). One hash, so a placement reads the key, the
   * reference and the counter with one HMGET and writes them with one HSET.
   */
  readonly book: string;
  /** Sorted set: order id by creation sequence (the book's counter `n`, taken inside the placement's script). */
  readonly orderSequence: string;
  /** Hash: order id → what an evicted order left (JSON). */
  readonly evicted: string;
  /** Hash: order id → until when its evicted record is kept (simulator ms). */
  readonly evictedUntil: string;
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

/** The field of the customer hash holding the customer's JSON. */
export const CUSTOMER_RECORD = "record";

/** The fields of a customer's book (`CustomerKeys.book`). */
export const bookField = {
  order: (id: string): string => `o:${id}`,
  reference: (reference: string): string => `r:${reference}`,
} as const;

export function customerKeys(prefix: string, customerId: string): CustomerKeys {
  const base = `${prefix}{${customerId}}:`;
  return {
    customer: `${base}customer`,
    book: `${base}book`,
    orderSequence: `${base}order-sequence`,
    evicted: `${base}evicted`,
    evictedUntil: `${base}evicted-until`,
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
