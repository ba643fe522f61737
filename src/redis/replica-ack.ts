/**
 * `--redis-durability replicated`: a write is acknowledged only once a
 * replica holds it. After each store write (and each shared job scheduled)
 * the client sends `WAIT 1 <ms>` on the connection the write went through:
 * WAIT covers every earlier write of that connection, so one WAIT after an
 * order's last write covers the order, its key and its job.
 *
 * On a cluster the writes of one request lie on one or a few masters (the
 * customer's slot, the job's shard, an index). WAIT goes to those masters
 * only, so a master that lost its replica, or died, fails the writes that
 * touched it and no others. Which masters they are is not guessed from the
 * key layout: the cluster client notes the hash slot of every command it
 * routes (`noteWriteSlots`) into the write in progress, tracked through
 * its async calls, and after the write each slot is resolved to the master
 * that serves it now, from the client's slot map — after a `MOVED` that is
 * the master the command was sent on to.
 *
 * When no replica answers in time the write stays applied on the master
 * and the call fails with `StoreNotReplicatedError` (503
 * `store_not_replicated`): a retry with the same idempotency key finds the
 * order rather than placing a second one, and is acknowledged once a
 * replica holds it. A slot no known master serves (mid-failover) fails
 * with `StoreUnavailableError` (503 `store_unavailable`).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Cluster, Redis } from "ioredis";
import { StoreNotReplicatedError, StoreUnavailableError } from "../domain/ports.ts";
import type { RedisClient } from "./redis-client.ts";

/** How long a write waits for a replica before it answers 503. */
export const REPLICA_ACK_TIMEOUT_MS = 1_000;

/**
 * Resolves once a replica holds the write: on one server, every write of
 * the connection; on a cluster, those on the masters of `slots` (the hash
 * slots the write's commands went to). Throws StoreNotReplicatedError or
 * StoreUnavailableError.
 */
export type ReplicaAck = (slots: ReadonlySet<number>) => Promise<void>;

/** The hash slots the write in progress (in this async context) has sent commands to. */
const writeSlots = new AsyncLocalStorage<Set<number>>();

/**
 * A `Cluster` class whose clients note the hash slot of each command they
 * route into the write in progress, if any. `sendCommand` is where every
 * command of a cluster client passes — single commands, scripts, and each
 * command of a pipeline or `MULTI` with the slot it was grouped by.
 *
 * @example
 * const cluster = new (noteWriteSlots(Cluster))(seeds, options);
 */
export function noteWriteSlots(base: typeof Cluster): typeof Cluster {
  return class SlotNotingCluster extends base {
    override sendCommand(...args: Parameters<Cluster["sendCommand"]>): unknown {
      const [command, , node] = args;
      const slot = (node as { slot?: number } | undefined)?.slot ?? command.getSlot();
      if (typeof slot === "number") writeSlots.getStore()?.add(slot);
      return super.sendCommand(...args);
    }
  };
}

/** The masters serving `slots` now, each once, from the client's slot map. */
function mastersServing(cluster: Cluster, slots: ReadonlySet<number>): Redis[] {
  const byAddress = new Map(cluster.nodes("master").map((node) => [`${node.options.host}:${node.options.port}`, node]));
  const masters = new Set<Redis>();
  for (const slot of slots) {
    const address = cluster.slots[slot]?.[0];
    const master = address === undefined ? undefined : byAddress.get(address);
    if (master === undefined) throw new StoreUnavailableError(`no Redis master serves hash slot ${slot} right now`);
    masters.add(master);
  }
  return [...masters];
}

/** ioredis's rejection of a command that outlived `commandTimeout`. */
const COMMAND_TIMED_OUT = "Command timed out";

/**
 * @example
 * const ack = replicaAck(client, 1000);
 * const placed = withReplicaAck(store, ["placeOrder"], ack);
 * await placed.placeOrder(placement); // throws StoreNotReplicatedError when no replica caught up within 1 s
 */
export function replicaAck(client: RedisClient, timeoutMs: number): ReplicaAck {
  return async (slots) => {
    const masters = client.isCluster ? mastersServing(client as Cluster, slots) : [client as Redis];
    const counts = await Promise.all(masters.map((node) => node.wait(1, timeoutMs))).catch((error: unknown) => {
      // The write itself was answered; a WAIT that outlived the client's command timeout (WAITs queue
      // one after another on a master's connection) is a replica that did not acknowledge in time.
      if ((error as Error).message === COMMAND_TIMED_OUT) {
        throw new StoreNotReplicatedError(`no Redis replica acknowledged the write in time`, { cause: error });
      }
      throw new StoreUnavailableError((error as Error).message, { cause: error });
    });
    if (counts.some((count) => count < 1)) {
      throw new StoreNotReplicatedError(`no Redis replica acknowledged the write within ${timeoutMs} ms`);
    }
  };
}

/**
 * `adapter` with `ack` awaited after each of `writes` succeeds, before its
 * result is handed on, for the slots that write's commands went to; its
 * other methods are left as they are.
 */
export function withReplicaAck<T extends object>(adapter: T, writes: readonly (keyof T)[], ack: ReplicaAck): T {
  const acknowledged = { ...adapter } as Record<string, unknown>;
  for (const name of writes) {
    const method = adapter[name] as (...args: unknown[]) => Promise<unknown>;
    acknowledged[name as string] = async (...args: unknown[]) => {
      const slots = new Set<number>();
      const result = await writeSlots.run(slots, () => method.apply(adapter, args));
      await ack(slots);
      return result;
    };
  }
  return acknowledged as T;
}
