/**
 * The request journal: one entry per HTTP request, kept in a bounded ring so
 * a long-running simulator does not grow without limit. It never records the
 * Authorization header, tokens (a credential in the query string is
 * redacted) or bodies — only what a test needs to verify
 * traffic (who, what, which status, which scenario rules fired, how long).
 */
import type { JournalEntry } from "../contract/admin-schemas.ts";
import type {
  IdempotencyOutcome,
  Journal,
  JournalPage,
  JournalPageQuery,
  JournalRecord,
} from "../domain/plugin-port.ts";

export type { IdempotencyOutcome, Journal, JournalPage, JournalPageQuery, JournalRecord };
export type { JournalEntry };

/** A record as the admin API shows it, under its id. */
export function toJournalEntry(id: number, record: JournalRecord): JournalEntry {
  const { wallMs, fired, idempotency: _idempotency, placed: _placed, ...rest } = record;
  return { id, ...rest, wallTime: new Date(wallMs).toISOString(), fired: [...fired] };
}

/** Whether a record passes the filters of a page query (`before` aside). */
export function matchesJournalQuery(record: JournalRecord, query: JournalPageQuery): boolean {
  return (
    (query.customerId === undefined || record.customerId === query.customerId) &&
    (query.status === undefined || record.status === query.status) &&
    (query.from === undefined || record.at >= query.from) &&
    (query.to === undefined || record.at <= query.to)
  );
}

/**
 * The journal as the admin API reads and resets it: this process's own, or,
 * on a Redis store, every process's.
 */
export interface JournalView {
  page(query: JournalPageQuery): Promise<JournalPage>;
  clear(customerId?: string): Promise<void>;
}

export const DEFAULT_JOURNAL_LIMIT = 10_000;

export function createJournal(limit: number = DEFAULT_JOURNAL_LIMIT): Journal {
  // Two parallel arrays: recording keeps the caller's object as is (no copy per request) next to its id.
  let ids: number[] = [];
  let records: JournalRecord[] = [];
  let nextId = 1;
  const keep = (from: number): void => {
    ids = ids.slice(from);
    records = records.slice(from);
  };
  return {
    record(entry) {
      ids.push(nextId++);
      records.push(entry);
      // Trim in batches so recording stays O(1) amortised.
      if (records.length > limit * 1.25) keep(records.length - limit);
    },
    list(filter = {}) {
      let selected = records.map((record, index) => ({ id: ids[index] as number, record }));
      if (selected.length > limit) selected = selected.slice(selected.length - limit);
      if (filter.customerId !== undefined) selected = selected.filter((e) => e.record.customerId === filter.customerId);
      if (filter.limit !== undefined && selected.length > filter.limit) {
        selected = selected.slice(selected.length - filter.limit);
      }
      return selected.map((e) => toJournalEntry(e.id, e.record));
    },
    page(query) {
      const matches = (record: JournalRecord): boolean => matchesJournalQuery(record, query);
      // Newest first, over at most the ring's size (`limit` × 1.25 records): bounded work per request.
      const oldest = Math.max(0, records.length - limit);
      const picked: number[] = [];
      let index = records.length - 1;
      for (; index >= oldest && picked.length < query.limit; index--) {
        if (query.before !== undefined && (ids[index] as number) >= query.before) continue;
        if (matches(records[index] as JournalRecord)) picked.push(index);
      }
      let older = false;
      for (; index >= oldest && !older; index--) older = matches(records[index] as JournalRecord);
      const entries = picked.reverse().map((i) => toJournalEntry(ids[i] as number, records[i] as JournalRecord));
      return { entries, olderThan: older ? entries[0]?.id : undefined };
    },
    clear(customerId) {
      if (customerId === undefined) {
        ids = [];
        records = [];
        return;
      }
      const keptIds: number[] = [];
      const kept: JournalRecord[] = [];
      records.forEach((record, index) => {
        if (record.customerId === customerId) return;
        keptIds.push(ids[index] as number);
        kept.push(record);
      });
      ids = keptIds;
      records = kept;
    },
  };
}
