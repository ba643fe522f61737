/**
 * Records (orders, webhook deliveries) in creation order, globally and per
 * customer, so a page of an admin listing or of the eviction scan starts
 * where the last one ended (binary search on a sequence number) instead of
 * scanning from the start.
 *
 * Removed records are not looked for: their slots go dead and are skipped,
 * and a sequence is compacted once it holds more dead slots than live ones,
 * so removal stays O(1) and the memory stays proportional to what is kept.
 */
/** What the index needs of a record. */
export interface Indexed {
  readonly id: string;
  readonly customerId: string;
  readonly createdAt: number;
}

/** The filters every listing has; the rest is the caller's `matches`. */
export interface PageQuery {
  readonly customerId?: string | undefined;
  /** Created at or after, simulator-clock ms. */
  readonly from?: number | undefined;
  /** Created at or before, simulator-clock ms. */
  readonly to?: number | undefined;
  readonly limit: number;
  readonly cursor?: string | undefined;
}

export interface Page<T> {
  readonly items: T[];
  readonly nextCursor: string | null;
}

/** Records examined by one page at most: bounds the time one admin request holds the event loop. */
const PAGE_SCAN_BUDGET = 5_000;

/** Below this many dead slots a sequence is never compacted (compacting tiny arrays is waste). */
const MIN_DEAD_TO_COMPACT = 1_024;

/** Ids with increasing sequence numbers; dead ids stay until the next compaction. */
interface Sequence {
  seqs: number[];
  ids: string[];
  dead: number;
}

const newSequence = (): Sequence => ({ seqs: [], ids: [], dead: 0 });

/** Index of the first entry with a sequence number above `seq`. */
function after(sequence: Sequence, seq: number): number {
  let low = 0;
  let high = sequence.seqs.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((sequence.seqs[middle] as number) <= seq) low = middle + 1;
    else high = middle;
  }
  return low;
}

function encodeCursor(seq: number): string {
  return seq.toString(36);
}

/** The sequence number a cursor names; RangeError for anything this index did not hand out. */
function decodeCursor(cursor: string): number {
  const seq = /^[0-9a-z]{1,11}$/.test(cursor) ? Number.parseInt(cursor, 36) : Number.NaN;
  if (!Number.isSafeInteger(seq)) throw new RangeError(`not a cursor of this listing: ${JSON.stringify(cursor)}`);
  return seq;
}

export interface CreationIndex<T extends Indexed> {
  add(record: T): void;
  /** Tells the index one record of `customerId` is gone (its slot is now dead). */
  removed(customerId: string): void;
  /** Forgets a customer's whole sequence (its records are all gone). */
  dropCustomer(customerId: string): void;
  /** Records matching the query and `matches`, oldest first. */
  page(query: PageQuery, matches?: (record: T) => boolean): Page<T>;
  clear(): void;
}

/**
 * @param lookup the live record with this id, undefined once removed.
 * @example
 * const index = createCreationIndex((id) => orders.get(id));
 * index.add(order);
 * index.page({ customerId: "demo", limit: 100 }); // { items: [order], nextCursor: null }
 */
export function createCreationIndex<T extends Indexed>(lookup: (id: string) => T | undefined): CreationIndex<T> {
  let nextSeq = 1;
  let all = newSequence();
  const byCustomer = new Map<string, Sequence>();

  function compact(sequence: Sequence): void {
    const seqs: number[] = [];
    const ids: string[] = [];
    for (let index = 0; index < sequence.ids.length; index++) {
      const id = sequence.ids[index] as string;
      if (lookup(id) === undefined) continue;
      seqs.push(sequence.seqs[index] as number);
      ids.push(id);
    }
    sequence.seqs = seqs;
    sequence.ids = ids;
    sequence.dead = 0;
  }

  function noteDead(sequence: Sequence): void {
    sequence.dead++;
    if (sequence.dead >= MIN_DEAD_TO_COMPACT && sequence.dead * 2 > sequence.ids.length) compact(sequence);
  }

  function scan(sequence: Sequence, query: PageQuery, matches: (record: T) => boolean): Page<T> {
    const items: T[] = [];
    const { ids, seqs } = sequence;
    let index = query.cursor === undefined ? 0 : after(sequence, decodeCursor(query.cursor));
    const end = Math.min(ids.length, index + Math.max(PAGE_SCAN_BUDGET, query.limit));
    for (; index < end && items.length < query.limit; index++) {
      const record = lookup(ids[index] as string);
      if (record === undefined) continue;
      // Creation order is time order: nothing later can be created before `to`.
      if (query.to !== undefined && record.createdAt > query.to) return { items, nextCursor: null };
      if ((query.from === undefined || record.createdAt >= query.from) && matches(record)) items.push(record);
    }
    return { items, nextCursor: index < ids.length ? encodeCursor(seqs[index - 1] as number) : null };
  }

  return {
    add(record) {
      const seq = nextSeq++;
      all.seqs.push(seq);
      all.ids.push(record.id);
      let own = byCustomer.get(record.customerId);
      if (own === undefined) {
        own = newSequence();
        byCustomer.set(record.customerId, own);
      }
      own.seqs.push(seq);
      own.ids.push(record.id);
    },
    removed(customerId) {
      noteDead(all);
      const own = byCustomer.get(customerId);
      if (own !== undefined) noteDead(own);
    },
    dropCustomer(customerId) {
      const own = byCustomer.get(customerId);
      if (own === undefined) return;
      byCustomer.delete(customerId);
      all.dead += own.ids.length - own.dead - 1;
      noteDead(all);
    },
    page(query, matches = () => true) {
      if (query.customerId === undefined) return scan(all, query, matches);
      const own = byCustomer.get(query.customerId);
      return own === undefined ? { items: [], nextCursor: null } : scan(own, query, matches);
    },
    clear() {
      all = newSequence();
      byCustomer.clear();
    },
  };
}
