/**
 * What "acknowledged" means on Redis, checked against the server before
 * the simulator starts (`--redis-durability`):
 *
 * - `memory`: an order is acknowledged once Redis applied it in memory. A
 *   Redis killed without an append-only file loses what its last snapshot
 *   lacks; a failover loses the writes not yet replicated.
 * - `aof`: every master must run with `appendonly yes`. With
 *   `appendfsync always` an acknowledged write is on disk before Redis
 *   answers; with `everysec` up to about a second of them may be lost in a
 *   crash of the machine, with `no` up to the kernel's flush (about 30 s),
 *   and the check says so.
 * - `replicated`: an order is acknowledged once a replica holds it
 *   (`WAIT 1 <ms>` after each write, `replica-ack.ts`); a master without a
 *   replica is warned about, since every write then answers 503.
 */
import type { Redis } from "ioredis";
import { type RedisClient, mastersOf } from "./redis-client.ts";

export const DURABILITY_LEVELS = ["memory", "aof", "replicated"] as const;
export type RedisDurability = (typeof DURABILITY_LEVELS)[number];

export interface DurabilityCheck {
  readonly level: RedisDurability;
  /** What an acknowledged write may still lose, in words. */
  readonly lossWindow: string;
  /** Settings that weaken the level without breaking it (e.g. `appendfsync everysec`). */
  readonly warnings: readonly string[];
}

const LOSS_WINDOW_BY_FSYNC: Record<string, string> = {
  always: "nothing acknowledged: each write is fsynced before Redis answers",
  everysec: "up to about 1 s of acknowledged writes if the machine running Redis crashes",
  no: "up to the kernel's flush (about 30 s) of acknowledged writes if the machine running Redis crashes",
};

async function configOf(node: Redis, name: string): Promise<string> {
  const [, value = ""] = (await node.config("GET", name)) as string[];
  return value;
}

// ioredis fills in every node's host and port (its defaults: localhost, 6379).
const nameOf = (node: Redis): string => `${node.options.host}:${node.options.port}`;

/**
 * Checks the servers for `level`; throws an Error naming the server and the
 * setting it lacks when they cannot give it.
 *
 * @example
 * const { lossWindow, warnings } = await checkDurability(client, "aof");
 */
export async function checkDurability(client: RedisClient, level: RedisDurability): Promise<DurabilityCheck> {
  if (level === "memory") {
    return {
      level,
      lossWindow: "what the server's last snapshot lacks if Redis is killed; unreplicated writes on a failover",
      warnings: [],
    };
  }
  if (level === "replicated") return checkReplicas(client);
  const windows = new Set<string>();
  const warnings: string[] = [];
  for (const node of mastersOf(client)) {
    if ((await configOf(node, "appendonly")) !== "yes") {
      throw new Error(`--redis-durability aof needs appendonly yes on Redis ${nameOf(node)}`);
    }
    const fsync = await configOf(node, "appendfsync");
    windows.add(LOSS_WINDOW_BY_FSYNC[fsync] ?? `unknown (appendfsync ${fsync})`);
    if (fsync !== "always") {
      warnings.push(`Redis ${nameOf(node)} has appendfsync ${fsync}, not always: ${LOSS_WINDOW_BY_FSYNC[fsync] ?? ""}`);
    }
  }
  return { level, lossWindow: [...windows].join("; "), warnings };
}

async function checkReplicas(client: RedisClient): Promise<DurabilityCheck> {
  const warnings: string[] = [];
  for (const node of mastersOf(client)) {
    const replicas = /^connected_slaves:(\d+)/m.exec(await node.info("replication"))?.[1] ?? "0";
    if (replicas === "0") {
      warnings.push(`Redis ${nameOf(node)} has no replica: every write will answer 503 store_not_replicated`);
    }
  }
  return {
    level: "replicated",
    lossWindow: "writes no replica acknowledged, answered 503 and never acknowledged; a failover keeps the rest",
    warnings,
  };
}
