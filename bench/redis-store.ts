/**
 * The Redis store's bars, in `npm run bench` (or alone: BENCH_ONLY=redis):
 * `POST /v1/airtime` through `serve` on the memory store, on Redis with one
 * process, and on Redis with `--workers 2`, in alternating rounds against one
 * redis-server started here; the median ratios; and Redis commands per
 * order, from the server's own `total_commands_processed`.
 *
 * Each `serve` is the real CLI in its own process group; the load comes from
 * wrk (or autocannon) in another process, as in the HTTP bench.
 */
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { freePort, startProcess } from "../src/harness/child-process.ts";
import { hasWrk, type LoadOptions, loadWithAutocannon, loadWithWrk } from "./load.ts";
import { BENCH_TOKEN, type LoadResult } from "./requests.ts";
import { median } from "./soak-verdict.ts";

const ROOT = resolve(import.meta.dirname, "..");
const BIN = resolve(ROOT, "bin/airtime-harness.js");
const REDIS_SERVER = process.env.REDIS_SERVER_PATH ?? "/usr/bin/redis-server";

export interface Served {
  readonly name: string;
  readonly url: string;
  stop(): Promise<void>;
}

/** A redis-server on a free loopback port, saving no snapshots; `args` add to its settings. */
export async function startRedisServer(args: readonly string[] = []): Promise<{ port: number; stop(): Promise<void> }> {
  const port = await freePort();
  const server = startProcess(REDIS_SERVER, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", ...args]);
  const ready = await server.waitFor(/Ready to accept connections/, 15_000);
  if (ready.kind !== "matched") throw new Error(`redis-server did not start: ${server.output()}`);
  return { port, stop: () => server.stop() };
}

/** Redis's own count of commands run so far (INFO stats), over a raw connection. */
export async function commandsProcessed(port: number): Promise<number> {
  const { Redis } = await import("ioredis");
  const client = new Redis({ port, host: "127.0.0.1", lazyConnect: true });
  await client.connect();
  const info = await client.info("stats");
  client.disconnect();
  return Number(/total_commands_processed:(\d+)/.exec(info)?.[1] ?? Number.NaN);
}

export async function serve(name: string, args: readonly string[]): Promise<Served> {
  const dir = mkdtempSync(join(tmpdir(), "airtime-bench-redis-"));
  const config = join(dir, "bench.json");
  writeFileSync(config, JSON.stringify({ demo: { token: BENCH_TOKEN, balance: 1_000_000_000 }, timing: "2s" }));
  const server = startProcess(process.execPath, [BIN, "serve", "--port", "0", "--config", config, "--quiet", ...args], {
    cwd: ROOT,
  });
  const started = await server.waitFor(/listening on (http:\/\/\S+)/, 60_000);
  if (started.kind !== "matched" || started.match[1] === undefined) {
    throw new Error(`${name}: ${started.kind}\n${server.output()}`);
  }
  return { name, url: started.match[1], stop: () => server.stop(15_000) };
}

let measurements = 0;

/** The Redis bars, printed. */
export async function runRedisBench(options: {
  readonly rounds: number;
  readonly durationS: number;
  readonly connections: number;
}): Promise<void> {
  console.log("\n## The Redis store: POST /v1/airtime");
  if (!existsSync(REDIS_SERVER)) {
    console.log(`skipped: no redis-server at ${REDIS_SERVER} (install Debian's redis-server)`);
    return;
  }
  const load = (await hasWrk()) ? loadWithWrk : loadWithAutocannon;
  const redis = await startRedisServer();
  const url = `redis://127.0.0.1:${redis.port}/0`;
  const targets = [
    await serve("memory store", []),
    await serve("Redis store, 1 process", ["--store", url]),
    await serve("Redis store, 2 workers", ["--store", url, "--workers", "2"]),
  ];
  const results = new Map<string, LoadResult[]>(targets.map((target) => [target.name, []]));
  const perOrder: number[] = [];
  try {
    for (let round = 1; round <= options.rounds; round++) {
      for (const target of targets) {
        const spec: LoadOptions = {
          url: target.url,
          endpoint: "post",
          durationS: options.durationS,
          connections: options.connections,
          prefix: `redis-${Date.now().toString(36)}-${++measurements}`,
        };
        const before = await commandsProcessed(redis.port);
        const result = await load(spec);
        const after = await commandsProcessed(redis.port);
        results.get(target.name)?.push(result);
        if (target.name === "Redis store, 1 process" && result.requests > 0) {
          // Two commands are the counting itself (INFO twice, less the first one's own).
          perOrder.push((after - before - 1) / result.requests);
        }
        console.log(
          `round ${round} ${target.name.padEnd(24)} ${result.rps.toFixed(0).padStart(7)} req/s  p99 ${result.p99Ms.toFixed(1)} ms  problems ${result.problems}`,
        );
      }
    }
  } finally {
    for (const target of targets) await target.stop();
    await redis.stop();
  }
  const rps = (name: string) => (results.get(name) ?? []).map((r) => r.rps);
  const p99 = (name: string) => median((results.get(name) ?? []).map((r) => r.p99Ms));
  const ratios = (top: string, bottom: string) => rps(top).map((value, i) => value / (rps(bottom)[i] ?? Number.NaN));
  const line = (label: string, values: readonly number[]) =>
    `${label}: ${median(values).toFixed(2)}× (rounds: ${values.map((v) => v.toFixed(2)).join(", ")})`;
  console.log(line("Redis store vs memory store, 1 process", ratios("Redis store, 1 process", "memory store")));
  console.log(line("Redis store, 2 workers vs 1 process", ratios("Redis store, 2 workers", "Redis store, 1 process")));
  for (const target of targets) {
    console.log(
      `${target.name}: median ${median(rps(target.name)).toFixed(0)} req/s, p99 ${p99(target.name).toFixed(1)} ms`,
    );
  }
  console.log(`Redis commands per order (1 process): ${median(perOrder).toFixed(1)}`);
}
