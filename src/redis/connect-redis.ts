/**
 * Opens the Redis store from a `redis://` URL, or on Redis Cluster from a
 * `redis+cluster://host:port,host:port` list of seed nodes (ioredis's
 * `Cluster`, which follows `MOVED` and `ASK` and refreshes its slot map by
 * itself). ioredis is an optional peer
 * dependency (the embedded store needs none), so it is loaded only here,
 * when a Redis store is asked for, with a clear message when it is missing.
 *
 * The client never queues commands while Redis is away
 * (`enableOfflineQueue: false`, and no command sent again after a reconnect): a request then
 * fails at once as `StoreUnavailableError` — a 503 `store_unavailable` —
 * instead of hanging, and the client reconnects by itself in the background.
 */
import type { Cluster, ClusterOptions, Redis, RedisOptions } from "ioredis";
import { StoreNotReplicatedError, StoreUnavailableError, type Store } from "../domain/ports.ts";
import { connectAndAwaitReady } from "./await-ready.ts";
import type { RedisClient } from "./redis-client.ts";
import { createRedisStore } from "./redis-store.ts";
import type { RedisStoreOptions } from "./redis-settings.ts";
import { noteWriteSlots } from "./replica-ack.ts";

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
  return /^rediss?:\/\//i.test(value) || isClusterUrl(value);
}

const CLUSTER_URL = /^redis\+cluster:\/\/(.+)$/i;

function isClusterUrl(value: string): boolean {
  return CLUSTER_URL.test(value);
}

/**
 * The seed nodes of a `redis+cluster://` URL; a RangeError names what is wrong.
 *
 * @example
 * clusterSeeds("redis+cluster://10.0.0.1:7000,10.0.0.2:7000"); // [{ host: "10.0.0.1", port: 7000 }, …]
 */
export function clusterSeeds(url: string): { host: string; port: number }[] {
  const list = CLUSTER_URL.exec(url)?.[1] ?? "";
  return list.split(",").map((address) => {
    const match = /^([^:,/]+):(\d{1,5})$/.exec(address.trim());
    const port = Number(match?.[2]);
    if (match?.[1] === undefined || port < 1 || port > 65_535) {
      throw new RangeError(`redis+cluster:// takes host:port,host:port; cannot read ${JSON.stringify(address)}`);
    }
    return { host: match[1], port };
  });
}

/** How long one command may wait for its answer before the request gives up (503 `store_unavailable`). */
const COMMAND_TIMEOUT_MS = 3_000;

/** One connection's settings, shared by a single client and every node of a cluster. */
const CONNECTION: RedisOptions = {
  enableOfflineQueue: false,
  // A command out when its connection closes fails at once, and is never sent again after the
  // reconnect: Redis may have run it already (the answer was lost, not the command), and a script
  // run twice (a placement, a compare-and-set, a delivery's insert) would answer as if another
  // process had done it, and its caller skip what follows (a delivery's first attempt never scheduled).
  maxRetriesPerRequest: 0,
  lazyConnect: true,
  // A connection that stays open but answers nothing (a partition, a blackholed route) fails each
  // command after this long, so the request answers 503 instead of hanging; above WAIT's 1 s.
  commandTimeout: COMMAND_TIMEOUT_MS,
  // Reconnects forever, never more than a second apart: the simulator outlives a Redis restart.
  retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
};

async function openClient(url: string): Promise<RedisClient> {
  let ioredis: { Redis: typeof Redis; Cluster: typeof Cluster };
  try {
    ioredis = await import("ioredis");
  } catch (error) {
    throw new Error(IOREDIS_MISSING, { cause: error });
  }
  if (!isClusterUrl(url)) return new ioredis.Redis(url, CONNECTION);
  const options: ClusterOptions = {
    enableOfflineQueue: false,
    lazyConnect: true,
    // Each node's connection opens at once: a lazy one would refuse its first command, with no offline queue.
    redisOptions: { ...CONNECTION, lazyConnect: false },
    clusterRetryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  };
  // Each command's slot is noted, so `replicated` waits only on the masters a write went to.
  return new (noteWriteSlots(ioredis.Cluster))(clusterSeeds(url), options);
}

export async function connectRedisStore(
  url: string,
  options: RedisStoreOptions & { readonly onError?: (error: Error) => void } = {},
): Promise<RedisStoreConnection> {
  const redis = await openClient(url);
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
    await connectAndAwaitReady(redis);
  } catch (error) {
    redis.disconnect();
    throw new Error(`cannot reach Redis at ${url}: ${(error as Error).message}`, { cause: error });
  }
  const store = guardUnavailable(
    createRedisStore(redis, {
      ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
      ...(options.shards === undefined ? {} : { shards: options.shards }),
    }),
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
 * programming errors (a RangeError) and a missing replica's acknowledgement
 * pass as they are, and so do the results
 * of methods that do not return a promise.
 */
export function guardUnavailable<T extends object>(adapter: T): T {
  const guarded: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(adapter) as [string, (...args: unknown[]) => unknown][]) {
    guarded[name] = (...args: unknown[]) => {
      const result = method.apply(adapter, args);
      if (!(result instanceof Promise)) return result;
      return result.catch((error: unknown) => {
        if (error instanceof RangeError || error instanceof StoreNotReplicatedError) throw error;
        throw new StoreUnavailableError((error as Error).message ?? String(error), { cause: error });
      });
    };
  }
  return guarded as T;
}
