/**
 * An evicted order's record as the memory store keeps it until its retention
 * ends (a day by default, so millions of them under load), in a `ByteMap`
 * under the order's id: the JSON of `[keptUntil, status, createdAt,
 * updatedAt, customerId, reference, message]`, the expiry first so a sweep
 * reads it without parsing the rest; the record a reader gets is made when
 * read.
 */
import type { EvictedOrder } from "../domain/model.ts";
import { expiryOf } from "./kept-key.ts";

export type KeptEvicted = string;
type Fields = [
  keptUntil: number,
  status: number,
  createdAt: number,
  updatedAt: number,
  customerId: string,
  reference: string,
  message: string,
];

export function evictedEntry(record: EvictedOrder): KeptEvicted {
  const { keptUntil, status, createdAt, updatedAt, customerId, reference, message } = record;
  const fields: Fields = [keptUntil, status, createdAt, updatedAt, customerId, reference, message];
  return JSON.stringify(fields);
}

/** Read as a kept key's expiry is: both put their expiry first. */
export const keptUntilOf: (kept: KeptEvicted) => number = expiryOf;

export function evictedOf(id: string, kept: KeptEvicted): EvictedOrder {
  const [keptUntil, status, createdAt, updatedAt, customerId, reference, message] = JSON.parse(kept) as Fields;
  return Object.freeze({ id, customerId, reference, status, message, createdAt, updatedAt, keptUntil });
}
