/**
 * The Redis a multi-instance test runs on, so one test body proves its claim
 * on one redis-server and again on the six-node Redis Cluster. A test asks
 * for a store URL per "database": on one server that is a numbered
 * database, so tests never share state; a cluster has only database 0, so
 * asking for another number empties every master first.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe } from "vitest";
import { redisSkipReason, startRedis } from "./redis.ts";
import { redisClusterSkipReason, startRedisCluster, type TestRedisCluster } from "./redis-cluster.ts";

export interface SharedRedis {
  /** A `--store` URL for the test's database number (a fresh one per number). */
  storeUrl(database: number): Promise<string>;
  stop(): Promise<void>;
}

export interface SharedRedisKind {
  readonly name: string;
  /** Why it cannot run here, or undefined. */
  readonly skip: string | undefined;
  start(): Promise<SharedRedis>;
}

/** Empties every master of the test cluster (their replicas follow). */
export async function flushMasters(cluster: TestRedisCluster): Promise<void> {
  for (const port of await cluster.masterPorts()) {
    const client = new Redis({ port, host: "127.0.0.1", maxRetriesPerRequest: 1 });
    try {
      await client.flushall();
    } finally {
      client.disconnect();
    }
  }
}

/**
 * @example
 * for (const kind of sharedRedisKinds()) describe.skipIf(kind.skip !== undefined)(`… on ${kind.name}`, () => { … });
 */
function sharedRedisKinds(): SharedRedisKind[] {
  return [
    {
      name: "one redis-server",
      skip: redisSkipReason(),
      async start() {
        const server = await startRedis();
        return { storeUrl: async (database) => server.url.replace(/\/0$/, `/${database}`), stop: () => server.stop() };
      },
    },
    {
      name: "a six-node Redis Cluster",
      skip: redisClusterSkipReason(),
      async start() {
        const cluster = await startRedisCluster();
        let current: number | undefined;
        return {
          async storeUrl(database) {
            if (current !== undefined && current !== database) await flushMasters(cluster);
            current = database;
            return cluster.url;
          },
          stop: () => cluster.stop(),
        };
      },
    },
  ];
}

/**
 * Describes `body` once per kind of shared Redis, each suite skipped (saying
 * why) where that kind cannot run here, the Redis started before its tests
 * and stopped after them.
 *
 * @example
 * describeOnEachRedis("kill -9 of an instance", (redis) => { it("…", async () => { await redis.storeUrl(1); }); });
 */
export function describeOnEachRedis(title: string, body: (redis: Pick<SharedRedis, "storeUrl">) => void): void {
  for (const kind of sharedRedisKinds()) {
    const suite = `${title} on ${kind.name}${kind.skip === undefined ? "" : ` (skipped: ${kind.skip})`}`;
    describe.skipIf(kind.skip !== undefined)(suite, () => {
      let started: SharedRedis | undefined;
      beforeAll(async () => {
        started = await kind.start();
      });
      afterAll(async () => {
        await started?.stop();
      });
      body({
        storeUrl(database) {
          if (started === undefined) throw new Error("the shared Redis is not started yet");
          return started.storeUrl(database);
        },
      });
    });
  }
}
