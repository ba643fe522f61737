/**
 * An idempotency key as the memory store keeps it, for as long as the key is
 * retained (a day by default, so hundreds of thousands of them): its customer
 * and key live once, in the map key, and the record a reader gets is made
 * when it is read.
 */
import { flatString } from "../domain/flat-string.ts";
import type { IdempotencyRecord } from "../domain/model.ts";

/** The map key of a customer's idempotency key. */
export function keyOf(customerId: string, key: string): string {
  // Flat: the composite is kept as a map key as long as the idempotency key lives.
  return flatString(`${customerId}\u0000${key}`);
}

export class KeptKey {
  readonly fingerprint: string;
  /** Absent while the first request is in flight. */
  readonly orderId: string | undefined;
  readonly expiresAt: number;

  constructor(record: IdempotencyRecord) {
    this.fingerprint = record.fingerprint;
    this.orderId = record.orderId;
    this.expiresAt = record.expiresAt;
  }

  /** The record under its map key (customer ids hold no NUL, so the first one splits it). */
  record(composite: string): IdempotencyRecord {
    const split = composite.indexOf("\u0000");
    return Object.freeze({
      customerId: composite.slice(0, split),
      key: composite.slice(split + 1),
      fingerprint: this.fingerprint,
      ...(this.orderId === undefined ? {} : { orderId: this.orderId }),
      expiresAt: this.expiresAt,
    });
  }
}
