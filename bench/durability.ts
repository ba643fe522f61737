/**
 * What each `--redis-durability` level costs, in one run (`npm run
 * bench:durability`): `POST /v1/airtime` through three `serve` processes,
 * each on a Redis of its own started here —
 *   - `memory`: a redis-server with no append-only file and no snapshots;
 *   - `aof`: a redis-server with `appendonly yes` and `appendfsync always`
 *     (every write on disk before Redis answers);
 *   - `replicated`: a redis-server with one replica attached, the simulator
 *     waiting (`WAIT 1`) for the replica after each acknowledged write —
 * in alternating rounds, the load from wrk (or autocannon) in another
 * process, as in the HTTP bench. Prints each level's median req/s and p99,
 * and its ratio to `memory` round by round.
 *
 * Options (environment): BENCH_ROUNDS (3), BENCH_DURATION seconds per target
 * per round (4), BENCH_CONNECTIONS (32).
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { hasWrk, loadWithAutocannon, loadWithWrk } from "./load.ts";
import { type Served, serve, startRedisServer } from "./redis-store.ts";
import { median } from "./soak-verdict.ts";
import type { LoadResult } from "./requests.ts";

const REDIS_SERVER = process.env.REDIS_SERVER_PATH ?? "/usr/bin/redis-server";
const LEVELS = ["memory", "aof", "replicated"] as const;
type Level = (typeof LEVELS)[number];

type RedisProcess = Awaited<ReturnType<typeof startRedisServer>>;

/** Waits until the replica on `port` says its link to the master is up. */
async function replicaLinked(port: number): Promise<void> {
  const client = new Redis({ port, host: "127.0.0.1" });
  try {
    for (let tries = 0; tries < 200; tries++) {
      if ((await client.info("replication")).includes("master_link_status:up")) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`the replica on port ${port} never linked to its master`);
  } finally {
    client.disconnect();
  }
}

/** The Redis servers of each level, in directories of their own. */
async function startServers(root: string): Promise<{ urls: Record<Level, string>; stop(): Promise<void> }> {
  const started: RedisProcess[] = [];
  const start = async (name: string, args: readonly string[]) => {
    const server = await startRedisServer(["--dir", mkdtempSync(join(root, `${name}-`)), ...args]);
    started.push(server);
    return server;
  };
  const memory = await start("memory", ["--appendonly", "no"]);
  const aof = await start("aof", ["--appendonly", "yes", "--appendfsync", "always"]);
  const master = await start("master", ["--appendonly", "no"]);
  const replica = await start("replica", ["--replicaof", "127.0.0.1", String(master.port)]);
  await replicaLinked(replica.port);
  const url = (server: RedisProcess) => `redis://127.0.0.1:${server.port}/0`;
  return {
    urls: { memory: url(memory), aof: url(aof), replicated: url(master) },
    async stop() {
      for (const server of started.reverse()) await server.stop();
    },
  };
}

function report(results: ReadonlyMap<Level, LoadResult[]>): void {
  const memory = results.get("memory") ?? [];
  console.log("\nlevel        median req/s   p99 (median)   vs memory (median; rounds)");
  for (const level of LEVELS) {
    const runs = results.get(level) ?? [];
    const ratios = runs.map((run, i) => run.rps / (memory[i]?.rps ?? Number.NaN));
    console.log(
      `${level.padEnd(12)} ${median(runs.map((run) => run.rps))
        .toFixed(0)
        .padStart(12)}   ${median(runs.map((run) => run.p99Ms))
        .toFixed(1)
        .padStart(9)} ms   ${median(ratios).toFixed(2)}× (${ratios.map((ratio) => ratio.toFixed(2)).join(", ")})`,
    );
  }
}

export async function runDurabilityBench(options: {
  readonly rounds: number;
  readonly durationS: number;
  readonly connections: number;
}): Promise<void> {
  console.log("## The cost of --redis-durability: POST /v1/airtime");
  if (!existsSync(REDIS_SERVER)) {
    console.log(`skipped: no redis-server at ${REDIS_SERVER} (install Debian's redis-server)`);
    return;
  }
  const load = (await hasWrk()) ? loadWithWrk : loadWithAutocannon;
  const root = mkdtempSync(join(tmpdir(), "airtime-bench-durability-"));
  const servers = await startServers(root);
  const targets: (Served & { level: Level })[] = [];
  const results = new Map<Level, LoadResult[]>(LEVELS.map((level) => [level, []]));
  try {
    for (const level of LEVELS) {
      const args = ["--store", servers.urls[level], "--redis-durability", level];
      targets.push({ ...(await serve(level, args)), level });
    }
    for (let round = 1; round <= options.rounds; round++) {
      for (const target of targets) {
        const prefix = `durability-${target.level}-${round}-${Date.now().toString(36)}`;
        const result = await load({
          url: target.url,
          endpoint: "post",
          durationS: options.durationS,
          connections: options.connections,
          prefix,
        });
        results.get(target.level)?.push(result);
        console.log(
          `round ${round} ${target.level.padEnd(10)} ${result.rps.toFixed(0).padStart(7)} req/s  ` +
            `p99 ${result.p99Ms.toFixed(1)} ms  problems ${result.problems}`,
        );
      }
    }
  } finally {
    for (const target of targets) await target.stop();
    await servers.stop();
    rmSync(root, { recursive: true, force: true });
  }
  report(results);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runDurabilityBench({
    rounds: Number(process.env.BENCH_ROUNDS ?? 3),
    durationS: Number(process.env.BENCH_DURATION ?? 4),
    connections: Number(process.env.BENCH_CONNECTIONS ?? 32),
  });
}
