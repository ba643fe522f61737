/**
 * Which journal the admin API reads. On the memory store: this process's.
 * On a Redis store every request is also appended to the shared stream, and
 * the admin API pages through that one, so any instance shows the requests
 * of all; `sim.journal` (and the plugins) keep this process's own requests.
 */
import type { Redis } from "ioredis";
import type { Journal, JournalView } from "../http/journal.ts";
import { createRedisJournal } from "../redis/redis-journal.ts";

export interface SharedJournal {
  /** Where the HTTP layer records finished requests. */
  readonly recorder: Journal;
  /** What `GET /_sim/journal` pages through and a reset clears. */
  readonly view: JournalView;
}

export function openSharedJournal(local: Journal, redis: Redis | undefined, limit: number): SharedJournal {
  if (redis === undefined) {
    return {
      recorder: local,
      view: {
        page: async (query) => local.page(query),
        async clear(customerId) {
          local.clear(customerId);
        },
      },
    };
  }
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
