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
  /** Newest first; the cursor of such a page goes on towards older records. */
  readonly newestFirst?: boolean | undefined;
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
  /**
   * Every slot before it is dead, but for those in `pinned`. The oldest
   * records are the ones evicted, so dead slots gather at the front, and the
   * eviction scan starts there on every batch: without this, each batch
   * would look up every dead id again (up to half the sequence, in a map of
   * hundreds of thousands) — a cost per order that grows with the orders
   * kept, until the next compaction.
   */
  liveFrom: number;
  /**
   * Indexes of the live slots before `liveFrom`, ascending: the few old
   * records that outlive those around them (an order pending for hours),
   * which would otherwise stop `liveFrom` for good.
   */
  pinned: number[];
}

/** Live slots kept in `pinned` at most; past them the dead front stops moving until a compaction. */
const MAX_PINNED = 64;

const newSequence = (): Sequence => ({ seqs: [], ids: [], dead: 0, liveFrom: 0, pinned: [] });

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

/** Moves the dead front past slot `index`, just examined (live when `record` is defined). */
function passFront<T>(sequence: Sequence, index: number, record: T | undefined): void {
  if (index !== sequence.liveFrom) return;
  if (record === undefined) sequence.liveFrom++;
  else if (sequence.pinned.length < MAX_PINNED) {
    sequence.pinned.push(index);
    sequence.liveFrom++;
  }
}

/** The live pinned slots at or after `from`, in order; forgets the pinned slots that died. */
function pinnedFrom<T>(
  sequence: Sequence,
  from: number,
  lookup: (id: string) => T | undefined,
): { index: number; record: T }[] {
  const live: { index: number; record: T }[] = [];
  const kept: number[] = [];
  for (const index of sequence.pinned) {
    const record = lookup(sequence.ids[index] as string);
    if (record === undefined) continue;
    kept.push(index);
    if (index >= from) live.push({ index, record });
  }
  if (kept.length < sequence.pinned.length) sequence.pinned = kept;
  return live;
}

/**
 * What a page does with each live record it reaches: keeps it when it is in
 * the window and matches. False once the page is over: creation order is
 * time order, so past the window's far edge (`to` going forward, `from`
 * going back) nothing more can fall in it.
 */
function taker<T extends Indexed>(query: PageQuery, matches: (record: T) => boolean, items: T[]) {
  const { from = -Infinity, to = Infinity } = query;
  const beyond = query.newestFirst === true ? (at: number) => at < from : (at: number) => at > to;
  return (record: T): boolean => {
    if (beyond(record.createdAt)) return false;
    if (record.createdAt >= from && record.createdAt <= to && matches(record)) items.push(record);
    return true;
  };
}

function scan<T extends Indexed>(
  sequence: Sequence,
  query: PageQuery,
  matches: (record: T) => boolean,
  lookup: (id: string) => T | undefined,
): Page<T> {
  const items: T[] = [];
  const { ids, seqs } = sequence;
  const budget = Math.max(PAGE_SCAN_BUDGET, query.limit);
  const start = query.cursor === undefined ? 0 : after(sequence, decodeCursor(query.cursor));
  // Before the dead front only the pinned slots hold records: examined first, then the rest.
  const front = start < sequence.liveFrom ? pinnedFrom(sequence, start, lookup) : [];
  let examined = 0;
  const take = taker(query, matches, items);
  for (const { index, record } of front) {
    examined++;
    if (!take(record)) return { items, nextCursor: null };
    if (items.length >= query.limit) return { items, nextCursor: encodeCursor(seqs[index] as number) };
  }
  let index = Math.max(start, sequence.liveFrom);
  const end = Math.min(ids.length, index + budget - examined);
  for (; index < end && items.length < query.limit; index++) {
    const record = lookup(ids[index] as string);
    // A removed record never comes back (ids are not reused): the dead front only moves on.
    passFront(sequence, index, record);
    if (record === undefined) continue;
    if (!take(record)) return { items, nextCursor: null };
  }
  return { items, nextCursor: index < ids.length ? encodeCursor(seqs[index - 1] as number) : null };
}

/**
 * `scan` backwards: from the newest record (or the one before the cursor)
 * down to the dead front, then the pinned slots below it, newest first.
 */
function scanNewestFirst<T extends Indexed>(
  sequence: Sequence,
  query: PageQuery,
  matches: (record: T) => boolean,
  lookup: (id: string) => T | undefined,
): Page<T> {
  const items: T[] = [];
  const { ids, seqs } = sequence;
  const budget = Math.max(PAGE_SCAN_BUDGET, query.limit);
  // The first slot at or after the cursor's: everything below it is older than the last page's end.
  const top = query.cursor === undefined ? ids.length : after(sequence, decodeCursor(query.cursor) - 1);
  const take = taker(query, matches, items);
  let index = top;
  const floor = Math.max(sequence.liveFrom, top - budget);
  while (index > floor && items.length < query.limit) {
    index--;
    const record = lookup(ids[index] as string);
    if (record !== undefined && !take(record)) return { items, nextCursor: null };
  }
  if (index > sequence.liveFrom || items.length >= query.limit) {
    return { items, nextCursor: index > 0 ? encodeCursor(seqs[index] as number) : null };
  }
  // Below the dead front only the pinned slots hold records.
  const below = pinnedFrom(sequence, 0, lookup).filter((slot) => slot.index < index);
  for (let i = below.length - 1; i >= 0; i--) {
    const { index: slot, record } = below[i] as { index: number; record: T };
    if (!take(record)) return { items, nextCursor: null };
    if (items.length >= query.limit) return { items, nextCursor: i > 0 ? encodeCursor(seqs[slot] as number) : null };
  }
  return { items, nextCursor: null };
}

/**
 * Cuts off the sequence's slots created before the global dead front,
 * which are all gone but the few pinned there, without looking a single
 * record up: evictions take the oldest first, so this is most of what a
 * compaction drops. Looking up every id of a sequence of hundreds of
 * thousands held the event loop for a fifth of a second under load.
 * True when it dropped enough.
 */
function cutDeadFront<T>(
  sequence: Sequence,
  all: Sequence,
  nextSeq: number,
  lookup: (id: string) => T | undefined,
): boolean {
  const frontSeq = all.liveFrom < all.seqs.length ? (all.seqs[all.liveFrom] as number) : nextSeq;
  const cut = after(sequence, frontSeq - 1);
  if (cut === 0) return false;
  // The records pinned before the global front that are still here and in this sequence, oldest first.
  const keptSeqs: number[] = [];
  const keptIds: string[] = [];
  for (const index of all.pinned) {
    const seq = all.seqs[index] as number;
    const at = after(sequence, seq - 1);
    if (at >= cut || sequence.seqs[at] !== seq || lookup(sequence.ids[at] as string) === undefined) continue;
    keptSeqs.push(seq);
    keptIds.push(sequence.ids[at] as string);
  }
  sequence.seqs = keptSeqs.concat(sequence.seqs.slice(cut));
  sequence.ids = keptIds.concat(sequence.ids.slice(cut));
  sequence.dead -= cut - keptSeqs.length;
  // What is before the front is now exactly the kept records, all pinned.
  sequence.liveFrom = keptSeqs.length;
  sequence.pinned = keptSeqs.map((_, index) => index);
  return !compactionDue(sequence);
}

function compactionDue(sequence: Sequence): boolean {
  return sequence.dead >= MIN_DEAD_TO_COMPACT && sequence.dead * 2 > sequence.ids.length;
}

export interface CreationIndex<T extends Indexed> {
  add(record: T): void;
  /** Tells the index one record of `customerId` is gone (its slot is now dead). */
  removed(customerId: string): void;
  /** Forgets a customer's whole sequence (its records are all gone). */
  dropCustomer(customerId: string): void;
  /** Every customer with a sequence (some may hold only removed records). */
  customerIds(): Iterable<string>;
  /** Records matching the query and `matches`, oldest first (newest first when the query says so). */
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
    if (cutDeadFront(sequence, all, nextSeq, lookup)) return;
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
    sequence.liveFrom = 0;
    sequence.pinned = [];
  }

  function noteDead(sequence: Sequence): void {
    sequence.dead++;
    if (compactionDue(sequence)) compact(sequence);
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
    customerIds: () => byCustomer.keys(),
    page(query, matches = () => true) {
      const read = query.newestFirst === true ? scanNewestFirst : scan;
      if (query.customerId === undefined) return read(all, query, matches, lookup);
      const own = byCustomer.get(query.customerId);
      return own === undefined ? { items: [], nextCursor: null } : read(own, query, matches, lookup);
    },
    clear() {
      all = newSequence();
      byCustomer.clear();
    },
  };
}
