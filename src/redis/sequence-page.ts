/**
 * One page of a listing kept in Redis as a sorted set by creation sequence
 * (orders, webhook deliveries): it reads a bounded number of candidates
 * after the cursor, so one call's work is bounded whatever the filter, and
 * may hand back fewer records than asked with a cursor to go on from.
 */
import type { RedisClient } from "./redis-client.ts";

/** Candidates one page call reads at most, per record asked for. */
const SCAN_FACTOR = 4;

export interface SequencePage<T> {
  readonly items: T[];
  readonly nextCursor: string | null;
}

export interface SequencePageQuery {
  readonly limit: number;
  readonly cursor?: string | undefined;
  /** Highest sequence first; the cursor then goes on below it. */
  readonly newestFirst?: boolean | undefined;
}

/** What a page does with a candidate: list it, pass over it, or end the listing (nothing later can match). */
export type PageVerdict = "keep" | "skip" | "stop";

/** Sequences are positive integers; the cursor is the last one a page read, in base 36. */
function decodeCursor(cursor: string): number {
  const sequence = /^[0-9a-z]{1,11}$/.test(cursor) ? Number.parseInt(cursor, 36) : Number.NaN;
  if (!Number.isSafeInteger(sequence)) throw new RangeError(`not a cursor of this listing: ${JSON.stringify(cursor)}`);
  return sequence;
}

/**
 * @param source the sorted set: record id by creation sequence; or several, read as one (merged by score,
 *   which must be unique across them).
 * @param load the records with these ids (those gone left out), in any order.
 * @example
 * const page = await readSequencePage(redis, "ah:{cus_1}:order-sequence", { limit: 100 }, readOrders, () => "keep");
 */
export async function readSequencePage<T extends { readonly id: string }>(
  redis: RedisClient,
  source: string | readonly string[],
  query: SequencePageQuery,
  load: (ids: readonly string[]) => Promise<readonly T[]>,
  verdict: (record: T) => PageVerdict,
): Promise<SequencePage<T>> {
  const from = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const budget = Math.max(query.limit, 1) * SCAN_FACTOR;
  const { ids, sequences, more } = await candidates(redis, source, from, budget, query.newestFirst === true);
  const byId = new Map((await load(ids)).map((record) => [record.id, record]));
  const items: T[] = [];
  for (let i = 0; i < ids.length; i++) {
    const record = byId.get(ids[i] as string);
    if (record === undefined) continue;
    const said = verdict(record);
    if (said === "stop") return { items, nextCursor: null };
    if (said === "skip") continue;
    items.push(record);
    if (items.length === query.limit) return { items, nextCursor: (sequences[i] as number).toString(36) };
  }
  const last = sequences[sequences.length - 1];
  return { items, nextCursor: !more || last === undefined ? null : last.toString(36) };
}

/**
 * The first `budget` ids past the cursor's sequence (after it, or before it
 * when newest first), from every source (each sends at most `budget`,
 * together in one round trip), and whether any may follow them.
 */
async function candidates(
  redis: RedisClient,
  source: string | readonly string[],
  from: number | undefined,
  budget: number,
  newestFirst: boolean,
): Promise<{ ids: string[]; sequences: number[]; more: boolean }> {
  const sources = typeof source === "string" ? [source] : source;
  const replies = await Promise.all(
    sources.map((key) =>
      newestFirst
        ? redis.zrevrangebyscore(
            key,
            from === undefined ? "+inf" : `(${from}`,
            "-inf",
            "WITHSCORES",
            "LIMIT",
            0,
            budget,
          )
        : redis.zrangebyscore(key, `(${from ?? 0}`, "+inf", "WITHSCORES", "LIMIT", 0, budget),
    ),
  );
  const scanned: { id: string; sequence: number }[] = [];
  for (const reply of replies) {
    for (let i = 0; i < reply.length; i += 2) scanned.push({ id: reply[i] as string, sequence: Number(reply[i + 1]) });
  }
  if (sources.length > 1) scanned.sort((a, b) => (newestFirst ? b.sequence - a.sequence : a.sequence - b.sequence));
  const taken = scanned.slice(0, budget);
  return {
    ids: taken.map(({ id }) => id),
    sequences: taken.map(({ sequence }) => sequence),
    more: scanned.length > budget || replies.some((reply) => reply.length / 2 >= budget),
  };
}
