/**
 * The client every Redis adapter takes: one `Redis` connection, or a
 * `Cluster` on Redis Cluster. Both speak the same commands; what differs is
 * what spans keys. On a cluster a command, a script or a `MULTI` may only
 * touch one hash slot, and `SCAN` sees one node, so the few steps that
 * sweep keys across customers go through the helpers below.
 */
import type { Cluster, Redis } from "ioredis";

export type RedisClient = Redis | Cluster;

/** Every master of a cluster, or the one connection: where a scan or a server setting is read. */
export function mastersOf(client: RedisClient): Redis[] {
  return client.isCluster ? (client as Cluster).nodes("master") : [client as Redis];
}

/**
 * Removes every key matching `pattern` (a `SCAN MATCH` glob), on every
 * master. Each key is unlinked on its own, pipelined per scanned batch: on
 * a cluster the keys of one batch lie in many slots, and one `UNLINK` of
 * several slots would be refused.
 */
export async function unlinkMatching(client: RedisClient, pattern: string): Promise<void> {
  for (const node of mastersOf(client)) {
    let cursor = "0";
    do {
      const [next, found] = await node.scan(cursor, "MATCH", pattern, "COUNT", 1000);
      if (found.length > 0) {
        const batch = node.pipeline();
        for (const key of found) batch.unlink(key);
        await batch.exec();
      }
      cursor = next;
    } while (cursor !== "0");
  }
}
