/**
 * The memory store's idempotency keys, kept for a key lifetime (a day by
 * default, so millions of them under load), as `KeptKey` strings under
 * their customer-and-key composite, in a {@link ByteMap}: off V8's heap, so
 * a day of keys does not slow the collector. Lifted out of the store's
 * factory as plain functions over one explicit {@link KeyTable}; the
 * placement reads and binds a key through it, with the composite built once
 * per request.
 */
import type { IdempotencyRecord } from "../domain/model.ts";
import { ByteMap } from "./byte-map.ts";
import { expiryOf, keptKey, keyOf, recordOf } from "./kept-key.ts";
import { dropExpiredFront, type Swept, sweepDue } from "./sweep-due.ts";

/** What the store holds of its keys; `sweptAt` is their last sweep. */
export interface KeyTable extends Swept {
  /** `customerId\0key` → record; insertion order is expiry order while the key lifetime is constant. */
  readonly keys: ByteMap;
}

export function createKeyTable(): KeyTable {
  return { keys: new ByteMap(), sweptAt: -Infinity };
}

/** Drops expired keys from the front; stops at the first live one. */
export function sweepExpiredKeys(table: KeyTable, now: number): void {
  if (sweepDue(table, now)) dropExpiredFront(table.keys, now, expiryOf);
}

/** Binds `key` under `composite`; a key bound again after it expired moves to the back (keeps expiry order). */
export function bindKey(table: KeyTable, composite: string, key: IdempotencyRecord): void {
  table.keys.set(composite, keptKey(key));
}

export function forgetCustomerKeys(table: KeyTable, customerId: string): void {
  const prefix = `${customerId}\u0000`;
  for (const composite of table.keys.keys()) if (composite.startsWith(prefix)) table.keys.delete(composite);
}

export function savedKeys(table: KeyTable): IdempotencyRecord[] {
  return Array.from(table.keys, ([composite, kept]) => recordOf(composite, kept));
}

/** Loads saved keys (in expiry order) into an emptied table. */
export function loadKeys(table: KeyTable, records: readonly IdempotencyRecord[]): void {
  for (const record of records) table.keys.set(keyOf(record.customerId, record.key), keptKey(record));
}
