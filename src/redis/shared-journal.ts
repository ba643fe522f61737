/**
 * The journal of a simulator on a Redis store: every request is recorded in
 * this process's journal and appended to the shared stream, and the admin
 * API pages through the shared one, so any instance shows the requests of
 * all; `sim.journal` (and the plugins) keep this process's own requests.
 */
import type { RedisClient } from "./redis-client.ts";
import type { Journal, JournalView } from "../http/journal.ts";
import { createRedisJournal } from "./redis-journal.ts";

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
