/**
 * An idempotency key as the memory store keeps it, for as long as the key is
 * retained (a day by default, so millions of them under load), in a
 * `ByteMap`: its customer and key live once, in the map key, and the
 * rest in the value, the JSON of `[expiresAt, fingerprint, orderId?]`; the
 * record a reader gets is made when read.
 */
import type { IdempotencyRecord } from "../domain/model.ts";

/** The map key of a customer's idempotency key, or of a customer's reference. */
export function keyOf(customerId: string, key: string): string {
  return `${customerId}\u0000${key}`;
}

/** A record's expiry, fingerprint and order (absent while the first request is in flight). */
export type KeptKey = string;
type Fields = [expiresAt: number, fingerprint: string, orderId?: string];

export function keptKey({ expiresAt, fingerprint, orderId }: IdempotencyRecord): KeptKey {
  const fields: Fields = orderId === undefined ? [expiresAt, fingerprint] : [expiresAt, fingerprint, orderId];
  return JSON.stringify(fields);
}

export function expiryOf(kept: KeptKey): number {
  return Number(kept.slice(1, kept.indexOf(",")));
}

/** The record under its map key (customer ids hold no NUL, so the first one splits it). */
export function recordOf(composite: string, kept: KeptKey): IdempotencyRecord {
  const split = composite.indexOf("\u0000");
  const [expiresAt, fingerprint, orderId] = JSON.parse(kept) as Fields;
  return Object.freeze({
    customerId: composite.slice(0, split),
    key: composite.slice(split + 1),
    fingerprint,
    ...(orderId === undefined ? {} : { orderId }),
    expiresAt,
  });
}
