/**
 * Connects a lazily created client and resolves once it can take commands.
 *
 * A single `Redis` connection is ready when `connect()` resolves. A
 * `Cluster` is not: when its first ready check (`CLUSTER INFO`) meets a node
 * connection still opening, which with no offline queue fails at once,
 * ioredis reconnects behind the scenes and the promise of that first
 * `connect()` never settles. So for a cluster the "ready" event is awaited
 * instead, and then each master's own connection, so that the first command
 * routed to a master does not meet a socket still opening.
 */
import type { EventEmitter } from "node:events";
import type { Cluster, Redis } from "ioredis";
import type { RedisClient } from "./redis-client.ts";

const CLUSTER_READY_TIMEOUT_MS = 20_000;

export async function connectAndAwaitReady(client: RedisClient): Promise<void> {
  if (!client.isCluster) {
    if (client.status === "wait") await client.connect();
    return;
  }
  const cluster = client as Cluster;
  const timeout = AbortSignal.timeout(CLUSTER_READY_TIMEOUT_MS);
  try {
    // A failed start (no seed node answers) rejects connect(); a ready check that failed only delays "ready".
    await Promise.race([readyEvent(cluster, timeout), cluster.connect()]);
    if (cluster.status !== "ready") await readyEvent(cluster, timeout);
    await Promise.all(cluster.nodes("master").map((node) => readyEvent(node, timeout)));
  } catch (error) {
    if (!timeout.aborted) throw error;
    throw new Error(`Redis Cluster not ready within ${CLUSTER_READY_TIMEOUT_MS} ms (status ${cluster.status})`, {
      cause: error,
    });
  }
}

/**
 * Resolves on the client's next "ready" (at once when it is ready already).
 * Not `events.once`: that rejects on any "error", and a cluster reports
 * passing node errors on its way to ready.
 */
function readyEvent(client: Redis | Cluster, signal: AbortSignal): Promise<void> {
  if (client.status === "ready") return Promise.resolve();
  return new Promise((resolve, reject) => {
    const emitter = client as EventEmitter;
    const done = () => {
      signal.removeEventListener("abort", abort);
      resolve();
    };
    const abort = () => {
      emitter.removeListener("ready", done);
      reject(signal.reason as Error);
    };
    emitter.once("ready", done);
    signal.addEventListener("abort", abort, { once: true });
  });
}
