/**
 * When the memory store sweeps what expired (idempotency keys, issued
 * tokens, evicted-order records): each table keeps its own mark, and one
 * rule decides for all three, so they are swept alike.
 *
 * A sweep walks its map from the front, and a Map keeps the slots of
 * deleted entries until it rehashes: swept on every call, each sweep would
 * step over tens of thousands of dead slots (about 40 µs per order at 600
 * orders/s). So sweeps run at most once per {@link SWEEP_EVERY_MS} of
 * simulator time; every read checks expiry itself, so a record not yet
 * swept is never answered.
 */

/** How often, in simulator time, expired keys, tokens and evicted-order records are swept. */
const SWEEP_EVERY_MS = 1_000;

/** A table swept from the front: when it was last swept, in simulator time. */
export interface Swept {
  sweptAt: number;
}

/** What a sweep needs of its table: a `Map`, or a `ByteMap`. */
export interface FrontSweepable<K, V> {
  entries(): Iterable<[K, V]>;
  delete(key: K): boolean;
}

/**
 * Deletes `map`'s entries from the front while they have expired at `now`,
 * stopping at the first live one: each table inserts in expiry order.
 * `dropped` hears of each entry deleted.
 */
export function dropExpiredFront<K, V>(
  map: FrontSweepable<K, V>,
  now: number,
  expiresAt: (value: V) => number,
  dropped?: (key: K, value: V) => void,
): void {
  for (const [key, value] of map.entries()) {
    if (expiresAt(value) > now) return;
    map.delete(key);
    dropped?.(key, value);
  }
}

/** Whether `table` is due a sweep at `now`; when it is, marks it swept. */
export function sweepDue(table: Swept, now: number): boolean {
  if (now - table.sweptAt < SWEEP_EVERY_MS) return false;
  table.sweptAt = now;
  return true;
}
