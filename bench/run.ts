/**
 * `npm run bench`: the project's speed bars, measured in one run.
 *
 * HTTP, each server in its own process, the load from another one (`wrk`
 * when it is on PATH, else autocannon in a child process; `bench/load.ts`):
 *   - p99 at fixed rates of 1,000 and 5,000 req/s on `POST /v1/airtime`,
 *     the simulator and bare node:http in alternating rounds (first, while
 *     the servers hold little state). Paced by autocannon's `overallRate` in
 *     a child process: wrk cannot pace, and wrk2 is not packaged by Debian;
 *   - throughput of six servers — the simulator, bare express 5, bare
 *     node:http (the limit), `prism mock spec/openapi.yaml`, WireMock and
 *     Mockoon (`bench/peers.ts`; `npm run bench:peers` installs the last
 *     two, which are skipped when missing), and `serve` itself with its
 *     default request log and with `--quiet` (`bench/serve-targets.ts`) — on
 *     `POST /v1/airtime` (a fresh idempotency key and reference per request),
 *     `GET /v1/airtime/{ref}` and `GET /v1/balance`, in alternating rounds;
 *     with `BENCH_DIALECTS=1`, also `serve --quiet` from before the dialect
 *     renderer and with an example dialect (`bench/dialect-targets.ts`).
 *
 * On a small shared machine one measurement of each target means little: a
 * neighbour's burst lands on one target and not the other. So every round
 * measures every target back to back, each round gives its own ratios, and
 * the median ratio over the rounds is reported. Alongside throughput, the
 * servers' own CPU time per request (Linux: /proc/<pid>/stat) gives the cost
 * ratio whatever limited the run. After each measurement the bench waits
 * until that server is idle (`waitUntilIdle`): a simulator finalises and
 * packs the last seconds' orders after its load stops, and that work is
 * counted as its own instead of landing on the next server measured. The
 * request log's cost is read again in paired rounds, both `serve`s loaded at
 * once (`bench/paired-cost.ts`). The medians go into docs/performance.md
 * (a table) and docs/performance-http.svg (a plot).
 *
 * Then the Redis store against the memory store, and 2 workers against 1
 * (`bench/redis-store.ts`) with 100,000 pending orders on Redis
 * (`bench/redis-pending.ts`), and the pending-orders bars
 * (`bench/pending-orders.ts`), in a child process with `--expose-gc`.
 *
 * Options (environment): BENCH_ROUNDS (3), BENCH_DURATION seconds per target
 * per round (4), BENCH_CONNECTIONS (32), BENCH_ORDERS (100000),
 * BENCH_ONLY=http|redis|pending, BENCH_DIALECTS=1, BENCH_PAIRED_ROUNDS (16), BENCH_LOAD=wrk|autocannon (default: wrk when
 * installed), BENCH_WRITE_DOCS=0 to leave the docs as they are.
 */
import { existsSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { freePort, startProcess } from "../src/harness/child-process.ts";
import { renderSvg, renderTable, type ServerSummary, writeBetweenMarkers } from "./http-report.ts";
import { hasWrk, type LoadOptions, loadWithAutocannon, loadWithWrk } from "./load.ts";
import { cpuCostLines, startDialectTargets } from "./dialect-targets.ts";
import { pairedCost } from "./paired-cost.ts";
import { startMockoon, startWiremock } from "./peers.ts";
import { cpuSeconds, waitUntilIdle } from "./process-cpu.ts";
import { type PendingOrdersReport, printPendingOrders } from "./pending-orders.ts";
import { printRedisPending, type RedisPendingReport } from "./redis-pending.ts";
import { runRedisBench } from "./redis-store.ts";
import { serveGoalLines } from "./serve-goals.ts";
import { startServe } from "./serve-targets.ts";
import { BENCH_TOKEN, ENDPOINT_LABELS, ENDPOINTS, type Endpoint, type LoadResult } from "./requests.ts";
import { median } from "./soak-verdict.ts";

const ROOT = resolve(import.meta.dirname, "..");
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 4);
const WARMUP_S = 2;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ORDERS = Number(process.env.BENCH_ORDERS ?? 100_000);
const ONLY = process.env.BENCH_ONLY;
const WRITE_DOCS = process.env.BENCH_WRITE_DOCS !== "0";
const DIALECTS = process.env.BENCH_DIALECTS === "1";
const FIXED_RATES = [1_000, 5_000] as const;
/** Paired rounds of 2 s for the default profile's CPU against the code before the dialects. */
const PAIRED_ROUNDS = Number(process.env.BENCH_PAIRED_ROUNDS ?? 16);
const PRISM_ENTRY = resolve(ROOT, "node_modules/@stoplight/prism-cli/dist/index.js");

interface Target {
  readonly name: string;
  readonly url: string;
  readonly pid: number | undefined;
  /** Seconds of warm-up load per request before the rounds (longer for a JIT that needs it). */
  readonly warmupS?: number;
  readonly stop: () => Promise<void>;
}

const SERVER_NAMES = { simulator: "simulator", express: "bare express 5", node: "bare node:http" } as const;

async function startNodeServer(kind: keyof typeof SERVER_NAMES): Promise<Target> {
  const server = startProcess(process.execPath, ["--import", "tsx", resolve(ROOT, "bench/servers.ts"), kind], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const ready = await server.waitFor(/READY (\S+)/, 60_000);
  if (ready.kind !== "matched" || ready.match[1] === undefined) throw new Error(`${kind} server: ${ready.kind}`);
  return { name: SERVER_NAMES[kind], url: ready.match[1], pid: server.child.pid, stop: () => server.stop() };
}

async function startPrismMock(): Promise<Target | undefined> {
  if (!existsSync(PRISM_ENTRY)) {
    console.log("prism mock: skipped, @stoplight/prism-cli is not installed (npm install it to compare)");
    return undefined;
  }
  const port = await freePort();
  // Run prism's entry with this node directly, so the pid measured is the server's own.
  const prism = startProcess(
    process.execPath,
    [
      PRISM_ENTRY,
      "mock",
      resolve(ROOT, "spec/openapi.yaml"),
      "-p",
      String(port),
      "-h",
      "127.0.0.1",
      "--errors",
      "-v",
      "error",
    ],
    { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] },
  );
  const url = `http://127.0.0.1:${port}`;
  for (let tries = 0; ; tries++) {
    try {
      await fetch(`${url}/v1/balance`, { headers: { authorization: `Bearer ${BENCH_TOKEN}` } });
      break;
    } catch {
      if (tries > 300 || prism.child.exitCode !== null) throw new Error("prism mock did not start");
      await new Promise((done) => setTimeout(done, 100));
    }
  }
  return { name: "prism mock", url, pid: prism.child.pid, stop: () => prism.stop() };
}

interface Measurement extends LoadResult {
  /** Server CPU µs per answered request. */
  readonly cpuPerRequestUs: number | undefined;
  /** Server CPU seconds per wall second (1 = one core busy). */
  readonly cpuShare: number | undefined;
}

const runId = Date.now().toString(36);
let sequence = 0;

async function measure(
  target: Target,
  endpoint: Endpoint,
  options: { durationS: number; overallRate?: number; generator: "wrk" | "autocannon" },
): Promise<Measurement> {
  const load: LoadOptions = {
    url: target.url,
    endpoint,
    durationS: options.durationS,
    connections: CONNECTIONS,
    prefix: `bench-${runId}-${++sequence}`,
  };
  const cpuBefore = cpuSeconds(target.pid);
  const started = performance.now();
  const result =
    options.generator === "wrk" && options.overallRate === undefined
      ? await loadWithWrk(load)
      : await loadWithAutocannon(
          options.overallRate === undefined ? load : { ...load, overallRate: options.overallRate },
        );
  const wallS = (performance.now() - started) / 1000;
  const cpuAfter = cpuSeconds(target.pid);
  const cpu = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
  // What the server still does for these requests (finalising, packing) is theirs, and must not run
  // while the next server is measured: the bench waits for it, and counts it here.
  const tail = await waitUntilIdle(target.pid);
  if (!tail.idle) console.log(`  (${target.name} was still busy ${Math.round(tail.waitedMs)} ms after its load)`);
  return {
    ...result,
    cpuPerRequestUs:
      cpu === undefined || result.requests === 0 ? undefined : ((cpu + tail.cpuS) / result.requests) * 1e6,
    cpuShare: cpu === undefined ? undefined : cpu / wallS,
  };
}

const fmt = (value: number | undefined, digits = 0): string => (value === undefined ? "n/a" : value.toFixed(digits));
const verdict = (ok: boolean) => (ok ? "meets the goal" : "BELOW the goal");

function printRow(label: string, name: string, m: Measurement): void {
  console.log(
    `  ${label.padEnd(22)} ${name.padEnd(15)} ${fmt(m.rps).padStart(7)} ${fmt(m.p50Ms, 2).padStart(7)} ${fmt(m.p99Ms, 2).padStart(7)} ` +
      `${fmt(m.cpuPerRequestUs).padStart(10)} ${(m.cpuShare === undefined ? "n/a" : `${Math.round(m.cpuShare * 100)}%`).padStart(6)}` +
      (m.problems > 0 ? `  (${m.problems} non-2xx/errors)` : ""),
  );
}

const HEADER = `  ${"round / request".padEnd(22)} ${"target".padEnd(15)} ${"req/s".padStart(7)} ${"p50 ms".padStart(7)} ${"p99 ms".padStart(7)} ${"cpu µs/req".padStart(10)} ${"cpu".padStart(6)}`;

function ratioLine(label: string, ratios: readonly number[], goal?: number): string {
  const m = median(ratios);
  const rounds = ratios.map((r) => r.toFixed(2)).join(", ");
  return `  ${label}: ${m.toFixed(2)}× (rounds: ${rounds})${goal === undefined ? "" : `; goal ≥ ${goal}× — ${verdict(m >= goal)}`}`;
}

async function runHttp(): Promise<void> {
  const generator = process.env.BENCH_LOAD === "autocannon" || !(await hasWrk()) ? "autocannon" : "wrk";
  console.log(
    `HTTP: load from ${generator === "wrk" ? "wrk -t1" : "autocannon in a child process"}, ${CONNECTIONS} connections; ` +
      `${ROUNDS} rounds × ${DURATION_S} s per target and request, targets alternating within each round`,
  );
  const [sim, bareExpress, bareNode] = await Promise.all([
    startNodeServer("simulator"),
    startNodeServer("express"),
    startNodeServer("node"),
  ]);
  const prism = await startPrismMock();
  const wiremock = await startWiremock(ROOT);
  const mockoon = await startMockoon(ROOT, WARMUP_S);
  const peers = [prism, wiremock, mockoon].filter((t): t is Target => t !== undefined);
  // `serve` with its default request log against `serve --quiet`: what the log costs.
  const serveQuiet = await startServe(ROOT, { log: "quiet" });
  const serveLogged = await startServe(ROOT, { log: "default" });
  const dialects = DIALECTS ? await startDialectTargets(ROOT) : undefined;
  const dialectTargets = [dialects?.before, dialects?.enveloped].filter((t): t is Target => t !== undefined);
  const targets = [sim, bareExpress, bareNode, serveQuiet, serveLogged, ...peers, ...dialectTargets];
  try {
    for (const target of targets) {
      const durationS = target.warmupS ?? WARMUP_S;
      for (const endpoint of ENDPOINTS) await measure(target, endpoint, { durationS, generator }); // JIT, pools
    }

    // First, while the servers hold only the warm-up's state.
    const fixedP99 = new Map<number, { sim: number[]; node: number[] }>();
    for (const rate of FIXED_RATES) {
      console.log(`\nPOST /v1/airtime at a fixed ${rate} req/s (autocannon overallRate, child process)\n${HEADER}`);
      const p99s = { sim: [] as number[], node: [] as number[] };
      for (let round = 1; round <= ROUNDS; round++) {
        const pair = round % 2 === 1 ? [sim, bareNode] : [bareNode, sim];
        for (const target of pair) {
          const m = await measure(target, "post", { durationS: DURATION_S, overallRate: rate, generator });
          printRow(`${round}`, target.name, m);
          (target === sim ? p99s.sim : p99s.node).push(m.p99Ms);
        }
      }
      fixedP99.set(rate, p99s);
    }

    console.log(`\nthroughput\n${HEADER}`);
    const results = new Map<Target, Map<Endpoint, Measurement[]>>(
      targets.map((t) => [t, new Map(ENDPOINTS.map((e) => [e, [] as Measurement[]]))]),
    );
    const ratios = new Map<string, number[]>();
    const addRatio = (key: string, value: number) => ratios.set(key, [...(ratios.get(key) ?? []), value]);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const endpoint of ENDPOINTS) {
        // Rotate the order, so no target always runs first (or right after the heaviest one).
        const order = targets.map((_, i) => targets[(i + round - 1) % targets.length] as Target);
        const round_ = new Map<Target, Measurement>();
        for (const target of order) {
          const m = await measure(target, endpoint, { durationS: DURATION_S, generator });
          round_.set(target, m);
          results.get(target)?.get(endpoint)?.push(m);
        }
        for (const target of targets)
          printRow(`${round} ${ENDPOINT_LABELS[endpoint]}`, target.name, round_.get(target) as Measurement);
        const s = (round_.get(sim) as Measurement).rps;
        addRatio(`${endpoint}/express`, s / (round_.get(bareExpress) as Measurement).rps);
        addRatio(`${endpoint}/node`, s / (round_.get(bareNode) as Measurement).rps);
        for (const peer of peers) addRatio(`${endpoint}/${peer.name}`, s / (round_.get(peer) as Measurement).rps);
        const quietRps = (round_.get(serveQuiet) as Measurement).rps;
        addRatio(`${endpoint}/log`, (round_.get(serveLogged) as Measurement).rps / quietRps);
      }
    }

    console.log("\nmedians over the rounds (simulator ÷ other server, throughput)");
    for (const endpoint of ENDPOINTS) {
      const label = ENDPOINT_LABELS[endpoint];
      const post = endpoint === "post";
      console.log(
        ratioLine(`${label} vs bare express 5`, ratios.get(`${endpoint}/express`) ?? [], post ? 2 : undefined),
      );
      console.log(ratioLine(`${label} vs bare node:http`, ratios.get(`${endpoint}/node`) ?? [], post ? 0.4 : 0.5));
      for (const peer of peers) {
        const goal = peer === prism ? 8 : undefined;
        console.log(ratioLine(`${label} vs ${peer.name}`, ratios.get(`${endpoint}/${peer.name}`) ?? [], goal));
      }
      const logLabel = `${label}: serve (log) ÷ serve --quiet`;
      console.log(ratioLine(logLabel, ratios.get(`${endpoint}/log`) ?? [], post ? 0.9 : undefined));
    }
    const postRounds = (target: Target) => ({ name: target.name, rounds: results.get(target)?.get("post") ?? [] });
    for (const line of serveGoalLines(postRounds(serveLogged), [bareNode, ...peers].map(postRounds))) console.log(line);
    if (dialects !== undefined) {
      const postCpu = (target: Target) => ({
        name: target.name,
        cpuUs: (results.get(target)?.get("post") ?? []).map((m) => m.cpuPerRequestUs),
      });
      const now = postCpu(serveQuiet);
      if (dialects.before !== undefined)
        for (const line of cpuCostLines("POST, default profile", postCpu(dialects.before), [now], 1.05))
          console.log(line);
      for (const line of cpuCostLines("POST, a dialect", now, [postCpu(dialects.enveloped)])) console.log(line);
      if (dialects.before !== undefined && generator === "wrk") {
        // The rounds above measure each server alone, seconds apart: too coarse for a 5 % bar here.
        const paired = { rounds: PAIRED_ROUNDS, seconds: 2, connections: CONNECTIONS, goalAtMost: 1.05 };
        await pairedCost("POST, default profile", dialects.before, serveQuiet, paired);
      }
    }
    if (generator === "wrk") {
      // The rounds above measure the two one after the other, each ±20 % on a shared machine:
      // loaded at the same time, a neighbour's burst lands on both, and 10 % can be read. After the
      // dialects' pairs: these place another 150,000 orders, and serve --quiet must not reach its
      // order cap (and start evicting) while it is compared with the code before the dialects.
      const paired = { rounds: PAIRED_ROUNDS, seconds: 2, connections: CONNECTIONS, throughputAtLeast: 0.9 };
      await pairedCost("POST, the request log", serveQuiet, serveLogged, paired);
    }
    for (const rate of FIXED_RATES) {
      const p99s = fixedP99.get(rate) as { sim: number[]; node: number[] };
      const simP99 = median(p99s.sim);
      console.log(
        `  p99 at ${rate} req/s: simulator ${simP99.toFixed(2)} ms (rounds: ${p99s.sim.map((p) => p.toFixed(1)).join(", ")})` +
          `${rate === 5_000 ? `; goal ≤ 5 ms — ${verdict(simP99 <= 5)}` : ""}; bare node:http ${median(p99s.node).toFixed(2)} ms`,
      );
    }

    const summaries: ServerSummary[] = targets.map((target) => {
      const byEndpoint = results.get(target) as Map<Endpoint, Measurement[]>;
      const pick = (f: (m: Measurement) => number | undefined) =>
        Object.fromEntries(
          ENDPOINTS.map((e) => {
            const values = (byEndpoint.get(e) ?? []).map(f).filter((v): v is number => v !== undefined);
            return [e, values.length === 0 ? undefined : median(values)];
          }),
        );
      return {
        name: target.name,
        rps: pick((m) => m.rps),
        p99Ms: pick((m) => m.p99Ms),
        cpuUs: pick((m) => m.cpuPerRequestUs),
      };
    });
    if (WRITE_DOCS) {
      const when = new Date().toISOString().slice(0, 10);
      writeFileSync(
        resolve(ROOT, "docs/performance-http.svg"),
        renderSvg(summaries, `req/s by server and request (${generator}, ${CONNECTIONS} connections, ${when})`),
      );
      writeBetweenMarkers(resolve(ROOT, "docs/performance.md"), renderTable(summaries));
      console.log("\nwrote docs/performance-http.svg and the table in docs/performance.md");
    }
  } finally {
    await Promise.all(targets.map((t) => t.stop()));
  }
}

/** The pending orders on Redis, in a process of their own (its own heap and event loop). */
async function runRedisPendingChild(): Promise<void> {
  const child = startProcess(
    process.execPath,
    ["--import", "tsx", resolve(ROOT, "bench/redis-pending.ts"), "--orders", String(ORDERS), "--json"],
    { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] },
  );
  const code = await child.exited;
  if (code !== 0) throw new Error(`bench/redis-pending.ts exited ${code}`);
  printRedisPending(JSON.parse(child.output().trim().split("\n").at(-1) ?? "null") as RedisPendingReport | undefined);
}

async function runPending(): Promise<void> {
  const child = startProcess(
    process.execPath,
    ["--expose-gc", "--import", "tsx", resolve(ROOT, "bench/pending-orders.ts"), "--orders", String(ORDERS), "--json"],
    { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] },
  );
  const code = await child.exited;
  if (code !== 0) throw new Error(`bench/pending-orders.ts exited ${code}`);
  printPendingOrders(JSON.parse(child.output().trim().split("\n").at(-1) ?? "{}") as PendingOrdersReport);
}

if (ONLY === undefined || ONLY === "http") await runHttp();
if (ONLY === undefined || ONLY === "redis") {
  await runRedisBench({ rounds: ROUNDS, durationS: DURATION_S, connections: CONNECTIONS });
  await runRedisPendingChild();
}
if (ONLY === undefined || ONLY === "pending") await runPending();
