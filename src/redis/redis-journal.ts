/**
 * The request journal on Redis, for simulators sharing a Redis store: one
 * capped stream every process appends to (`XADD … MAXLEN ~`), so the admin
 * API of any process pages through the requests of all. Entry ids come from
 * one counter and are the stream ids' first part, so they keep the order of
 * arrival in Redis and page as the in-process journal's ids do.
 *
 * A simulator on a Redis store opens both sides (`openSharedJournal`):
 * every request is recorded in this process's journal and appended to the
 * shared stream, and the admin API pages through the shared one, so any
 * instance shows the requests of all; `sim.journal` (and the plugins) keep
 * this process's own requests.
 */
import type { RedisClient } from "./redis-client.ts";
import { luaScript } from "./lua-script.ts";
import { redisJournalSettings, type RedisJournalOptions } from "./redis-settings.ts";
import {
  type JournalEntry,
  type JournalPage,
  type JournalRecord,
  type JournalView,
  matchesJournalQuery,
  toJournalEntry,
  type Journal,
} from "../http/journal.ts";

export interface RedisJournal extends JournalView {
  /** Appends a record; never waits, never throws (Redis away is reported by the store). */
  record(entry: JournalRecord): void;
}

/**
 * KEYS: stream, counter. ARGV: limit, record JSON. The next id, kept above
 * the stream's last one: a reset may have removed the counter and not yet
 * the stream, and then Redis refuses the entry (an id at or below the
 * stream's last), so the counter moves past the last id and the entry goes
 * in after all. Every request appends one entry, and this slot is the one
 * every request writes: the common path is three commands, the script and
 * the two it runs.
 */
const APPEND = `
local id = redis.call('INCR', KEYS[2])
local added = redis.pcall('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], id .. '-0', 'r', ARGV[2])
if type(added) == 'table' and added.err then
  local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)[1]
  id = tonumber(string.match(last[1], '^(%d+)')) + 1
  redis.call('SET', KEYS[2], id)
  redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], id .. '-0', 'r', ARGV[2])
end
return id
`;

/** Stream entries read per call while paging. */
const CHUNK = 256;

type StreamEntry = [id: string, fields: string[]];

/**
 * @example
 * const journal = createRedisJournal(redis);
 * journal.record(record);
 * const { entries, olderThan } = await journal.page({ customerId: "acme", limit: 50 });
 */
export function createRedisJournal(redis: RedisClient, options: RedisJournalOptions = {}): RedisJournal {
  const { prefix, limit } = redisJournalSettings(options);
  const keys = { stream: `${prefix}{journal}:requests`, counter: `${prefix}{journal}:sequence` };
  const append = luaScript(redis, APPEND, 2);

  /** Newest first, from `end` (inclusive; `+` for the newest), at most `limit` entries in all. */
  async function* newestFirst(end: string): AsyncGenerator<{ id: number; record: JournalRecord }> {
    let read = 0;
    let from = end;
    while (read < limit) {
      const batch = (await redis.xrevrange(
        keys.stream,
        from,
        "-",
        "COUNT",
        Math.min(CHUNK, limit - read),
      )) as StreamEntry[];
      for (const [streamId, fields] of batch) {
        yield { id: Number.parseInt(streamId, 10), record: JSON.parse(fields[1] as string) as JournalRecord };
      }
      read += batch.length;
      const last = batch.at(-1);
      if (last === undefined || batch.length < CHUNK) return;
      from = `(${last[0]}`;
    }
  }

  async function* oldestFirst(): AsyncGenerator<{ streamId: string; record: JournalRecord }> {
    let from = "-";
    for (;;) {
      const batch = (await redis.xrange(keys.stream, from, "+", "COUNT", CHUNK)) as StreamEntry[];
      for (const [streamId, fields] of batch)
        yield { streamId, record: JSON.parse(fields[1] as string) as JournalRecord };
      const last = batch.at(-1);
      if (last === undefined || batch.length < CHUNK) return;
      from = `(${last[0]}`;
    }
  }

  return {
    record(entry) {
      append(keys.stream, keys.counter, limit, JSON.stringify(entry)).catch(() => undefined);
    },
    async page(query): Promise<JournalPage> {
      if (query.before !== undefined && query.before <= 1) return { entries: [], olderThan: undefined };
      const picked: JournalEntry[] = [];
      let older = false;
      for await (const { id, record } of newestFirst(query.before === undefined ? "+" : `(${query.before}-0`)) {
        if (!matchesJournalQuery(record, query)) continue;
        if (picked.length === query.limit) {
          older = true;
          break;
        }
        picked.push(toJournalEntry(id, record));
      }
      const entries = picked.reverse();
      return { entries, olderThan: older ? entries[0]?.id : undefined };
    },
    async clear(customerId) {
      if (customerId === undefined) {
        // The counter stays: ids never repeat, as in the in-process journal.
        await redis.del(keys.stream);
        return;
      }
      const gone: string[] = [];
      for await (const { streamId, record } of oldestFirst()) if (record.customerId === customerId) gone.push(streamId);
      for (let i = 0; i < gone.length; i += CHUNK) await redis.xdel(keys.stream, ...gone.slice(i, i + CHUNK));
    },
  };
}

/** Where the HTTP layer records requests, and what the admin API reads. */
export interface JournalSides {
  /** Where the HTTP layer records finished requests. */
  readonly recorder: Journal;
  /** What `GET /_sim/journal` pages through and a reset clears. */
  readonly view: JournalView;
}

export function openSharedJournal(local: Journal, redis: RedisClient, limit: number): JournalSides {
  const shared = createRedisJournal(redis, { limit });
  return {
    recorder: {
      ...local,
      record(entry) {
        local.record(entry);
        shared.record(entry);
      },
    },
    view: {
      page: (query) => shared.page(query),
      async clear(customerId) {
        local.clear(customerId);
        await shared.clear(customerId);
      },
    },
  };
}
