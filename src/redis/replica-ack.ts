/**
 * `--redis-durability replicated`: a write is acknowledged only once a
 * replica holds it. After each store write (and each shared job scheduled)
 * the client sends `WAIT 1 <ms>` on the connection the write went through:
 * WAIT covers every earlier write of that connection, so one WAIT after an
 * order's last write covers the order, its key and its job. On a cluster
 * the writes of one request may lie on several masters, so WAIT goes to
 * each master the client holds; a master this client wrote nothing new to
 * answers at once, its replicas being already there.
 *
 * When no replica answers in time the write stays applied on the master
 * and the call fails with `StoreNotReplicatedError` (503
 * `store_not_replicated`): a retry with the same idempotency key finds the
 * order rather than placing a second one, and is acknowledged once a
 * replica holds it.
 */
import { StoreNotReplicatedError, StoreUnavailableError } from "../domain/ports.ts";
import { mastersOf, type RedisClient } from "./redis-client.ts";

/** How long a write waits for a replica before it answers 503. */
export const REPLICA_ACK_TIMEOUT_MS = 1_000;

/** Resolves once a replica of every master holds this client's writes; throws StoreNotReplicatedError. */
export type ReplicaAck = () => Promise<void>;

/**
 * @example
 * const ack = replicaAck(client, 1000);
 * await store.placeOrder(placement);
 * await ack(); // throws StoreNotReplicatedError when no replica caught up within 1 s
 */
export function replicaAck(client: RedisClient, timeoutMs: number): ReplicaAck {
  return async () => {
    const counts = await Promise.all(mastersOf(client).map((node) => node.wait(1, timeoutMs))).catch(
      (error: unknown) => {
        throw new StoreUnavailableError((error as Error).message, { cause: error });
      },
    );
    if (counts.some((count) => count < 1)) {
      throw new StoreNotReplicatedError(`no Redis replica acknowledged the write within ${timeoutMs} ms`);
    }
  };
}

/**
 * `adapter` with `ack` awaited after each of `writes` succeeds, before its
 * result is handed on; its other methods are left as they are.
 */
export function withReplicaAck<T extends object>(adapter: T, writes: readonly (keyof T)[], ack: ReplicaAck): T {
  const acknowledged = { ...adapter } as Record<string, unknown>;
  for (const name of writes) {
    const method = adapter[name] as (...args: unknown[]) => Promise<unknown>;
    acknowledged[name as string] = async (...args: unknown[]) => {
      const result = await method.apply(adapter, args);
      await ack();
      return result;
    };
  }
  return acknowledged as T;
}
