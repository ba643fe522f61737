/**
 * The request journal: one entry per HTTP request, kept in a bounded ring so
 * a long-running simulator does not grow without limit. It never records the
 * Authorization header, tokens or bodies — only what a test needs to verify
 * traffic (who, what, which status, which scenario rules fired, how long).
 */
import type { JournalEntry } from "../contract/admin-schemas.ts";

export type { JournalEntry };

/** What the pipeline records; turned into a `JournalEntry` only when read (the hot path stays cheap). */
export interface JournalRecord extends Omit<JournalEntry, "id" | "wallTime" | "fired"> {
  /** Wall-clock time when the request arrived, Unix ms. */
  readonly wallMs: number;
  readonly fired: readonly string[];
}

interface StoredRecord extends JournalRecord {
  readonly id: number;
}

function toEntry(record: StoredRecord): JournalEntry {
  const { wallMs, fired, ...rest } = record;
  return { ...rest, wallTime: new Date(wallMs).toISOString(), fired: [...fired] };
}

export interface Journal {
  record(entry: JournalRecord): void;
  /** Newest last; `limit` keeps the newest N. */
  list(filter?: { customerId?: string; limit?: number }): JournalEntry[];
  /** Forgets every entry, or one customer's entries. */
  clear(customerId?: string): void;
}

export const DEFAULT_JOURNAL_LIMIT = 10_000;

export function createJournal(limit: number = DEFAULT_JOURNAL_LIMIT): Journal {
  let entries: StoredRecord[] = [];
  let nextId = 1;
  return {
    record(entry) {
      entries.push({ id: nextId++, ...entry });
      // Trim in batches so recording stays O(1) amortised.
      if (entries.length > limit * 1.25) entries = entries.slice(entries.length - limit);
    },
    list(filter = {}) {
      let selected = entries.length > limit ? entries.slice(entries.length - limit) : entries;
      if (filter.customerId !== undefined) selected = selected.filter((e) => e.customerId === filter.customerId);
      if (filter.limit !== undefined && selected.length > filter.limit) {
        selected = selected.slice(selected.length - filter.limit);
      }
      return selected.map(toEntry);
    },
    clear(customerId) {
      entries = customerId === undefined ? [] : entries.filter((e) => e.customerId !== customerId);
    },
  };
}
