/**
 * Opens the Redis store from a `redis://` URL. ioredis is an optional peer
 * dependency (the embedded store needs none), so it is loaded only here,
 * when a Redis store is asked for, with a clear message when it is missing.
 *
 * The client never queues commands while Redis is away
 * (`enableOfflineQueue: false`, one retry per request): a request then
 * fails at once as `StoreUnavailableError` — a 503 `store_unavailable` —
 * instead of hanging, and the client reconnects by itself in the background.
 */
import type { Redis as RedisClient } from "ioredis";
import { StoreUnavailableError, type Store } from "../domain/ports.ts";
import { createRedisStore } from "./redis-store.ts";

const IOREDIS_MISSING = "--store redis://… needs ioredis, an optional peer dependency: npm install ioredis@5";

export interface RedisStoreConnection {
  readonly store: Store;
  /** The client, for the other adapters on the same Redis (the shared scheduler). */
  readonly client: RedisClient;
  /** Closes the connection (after the simulator stopped using the store). */
  close(): Promise<void>;
}

/** Whether a store setting names Redis rather than the embedded memory store. */
export function isRedisUrl(value: string): boolean {
  return /^rediss?:\/\//i.test(value);
}

export async function connectRedisStore(
  url: string,
  options: { readonly prefix?: string; readonly onError?: (error: Error) => void } = {},
): Promise<RedisStoreConnection> {
  let Redis: typeof RedisClient;
  try {
    ({ Redis } = await import("ioredis"));
  } catch (error) {
    throw new Error(IOREDIS_MISSING, { cause: error });
  }
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    lazyConnect: true,
    // Reconnects forever, never more than a second apart: the simulator outlives a Redis restart.
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  });
  // Reported once per outage (a failed start is reported by `connect` below); the client keeps reconnecting.
  let reported = true;
  redis.on("error", (error: Error) => {
    if (!reported) options.onError?.(error);
    reported = true;
  });
  redis.on("ready", () => {
    reported = false;
  });
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw new Error(`cannot reach Redis at ${url}: ${(error as Error).message}`, { cause: error });
  }
  const store = guardUnavailable(
    createRedisStore(redis, options.prefix === undefined ? {} : { prefix: options.prefix }),
  );
  return {
    store,
    client: redis,
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

/**
 * An adapter on Redis (the store, the delivery log, the scheduler) with
 * every failure to reach Redis turned into `StoreUnavailableError`;
 * programming errors (a RangeError) pass as they are, and so do the results
 * of methods that do not return a promise.
 */
export function guardUnavailable<T extends object>(adapter: T): T {
  const guarded: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(adapter) as [string, (...args: unknown[]) => unknown][]) {
    guarded[name] = (...args: unknown[]) => {
      const result = method.apply(adapter, args);
      if (!(result instanceof Promise)) return result;
      return result.catch((error: unknown) => {
        if (error instanceof RangeError) throw error;
        throw new StoreUnavailableError((error as Error).message ?? String(error), { cause: error });
      });
    };
  }
  return guarded as T;
}
