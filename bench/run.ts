/**
 * `npm run bench`: the project's speed bars, measured in one run.
 *
 * HTTP, each server in its own process, after a warm-up:
 *   - p99 at a fixed 1,000 req/s, the simulator and bare express in
 *     alternating rounds (first, while the servers hold little state);
 *   - throughput under the same load, in alternating rounds, of
 *     1. the simulator's `POST /v1/airtime` (auth, validation, a fresh
 *        idempotency key and reference per request, debit, scheduling),
 *     2. a bare express 5 route that only parses JSON and answers,
 *     3. `prism mock spec/openapi.yaml`.
 *
 * On a small shared machine one measurement of each target means little: a
 * neighbour's burst lands on one target and not the other. So every round
 * measures every target back to back, each round gives its own ratios, and
 * the median ratio over the rounds is reported. Alongside throughput, the
 * servers' own CPU time per request (Linux: /proc/<pid>/stat) gives the cost
 * ratio whatever limited the run, and the CPU share a server used shows
 * whether it was saturated (≈ 100 % of a core or more: the server was the
 * bottleneck, not the load generator).
 *
 * Then the pending-orders bars (`bench/pending-orders.ts`), in a child
 * process with `--expose-gc`.
 *
 * Options (environment): BENCH_ROUNDS (3), BENCH_DURATION seconds per target
 * per round (4), BENCH_CONNECTIONS (50), BENCH_PIPELINING (1), BENCH_ORDERS
 * (100000), BENCH_ONLY=http|pending.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import autocannon, { type Result } from "autocannon";
import { freePort, startProcess } from "../src/harness/child-process.ts";
import { type PendingOrdersReport, printPendingOrders } from "./pending-orders.ts";

const ROOT = resolve(import.meta.dirname, "..");
const TOKEN = "bench-token-0001";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 4);
const WARMUP_S = 2;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const PIPELINING = Number(process.env.BENCH_PIPELINING ?? 1);
const ORDERS = Number(process.env.BENCH_ORDERS ?? 100_000);
const ONLY = process.env.BENCH_ONLY;
const FIXED_RATE = 1_000;
const FIXED_CONNECTIONS = 10;

interface Target {
  readonly name: string;
  readonly url: string;
  readonly pid: number | undefined;
  readonly stop: () => Promise<void>;
}

const CLOCK_TICKS_PER_S = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User + system CPU seconds of a process (all its threads), or undefined where /proc is missing. */
function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which may contain spaces: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_S;
  } catch {
    return undefined;
  }
}

async function startNodeServer(kind: "simulator" | "express"): Promise<Target> {
  const server = startProcess(process.execPath, ["--import", "tsx", resolve(ROOT, "bench/servers.ts"), kind], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const ready = await server.waitFor(/READY (\S+)/, 60_000);
  if (ready.kind !== "matched" || ready.match[1] === undefined) throw new Error(`${kind} server: ${ready.kind}`);
  const name = kind === "simulator" ? "simulator" : "bare express 5";
  return { name, url: ready.match[1], pid: server.child.pid, stop: () => server.stop() };
}

async function startPrismMock(): Promise<Target> {
  const port = await freePort();
  // Run prism's entry with this node directly, so the pid measured is the server's own.
  const prism = startProcess(
    process.execPath,
    [
      resolve(ROOT, "node_modules/@stoplight/prism-cli/dist/index.js"),
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
      await fetch(`${url}/v1/balance`, { headers: { authorization: `Bearer ${TOKEN}` } });
      break;
    } catch {
      if (tries > 300 || prism.child.exitCode !== null) throw new Error("prism mock did not start");
      await new Promise((done) => setTimeout(done, 100));
    }
  }
  return { name: "prism mock", url, pid: prism.child.pid, stop: () => prism.stop() };
}

let sequence = 0;
const runId = Date.now().toString(36);

function load(
  url: string,
  options: { durationS: number; overallRate?: number; connections?: number },
): Promise<Result> {
  return autocannon({
    url: `${url}/v1/airtime`,
    connections: options.connections ?? CONNECTIONS,
    pipelining: options.overallRate === undefined ? PIPELINING : 1,
    duration: options.durationS,
    ...(options.overallRate === undefined ? {} : { overallRate: options.overallRate }),
    requests: [
      {
        method: "POST",
        setupRequest(request) {
          // A new order every time: fresh idempotency key and reference.
          const key = `bench-${runId}-${++sequence}`;
          request.headers = {
            ...request.headers,
            "content-type": "application/json",
            authorization: `Bearer ${TOKEN}`,
            "idempotency-key": key,
          };
          request.body = JSON.stringify({ account: "0712345678", amount: 10, currency: "KES", reference: key });
          return request;
        },
      },
    ],
  });
}

interface Measurement {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly problems: number;
  /** Server CPU µs per answered request. */
  readonly cpuPerRequestUs: number | undefined;
  /** Server CPU seconds per wall second (1 = one core busy). */
  readonly cpuShare: number | undefined;
}

async function measure(
  target: Target,
  options: { durationS: number; overallRate?: number; connections?: number },
): Promise<Measurement> {
  const cpuBefore = cpuSeconds(target.pid);
  const started = performance.now();
  const result = await load(target.url, options);
  const wallS = (performance.now() - started) / 1000;
  const cpuAfter = cpuSeconds(target.pid);
  const cpu = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
  const answered = result.requests.total;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    problems: result.non2xx + result.errors + result.timeouts,
    cpuPerRequestUs: cpu === undefined || answered === 0 ? undefined : (cpu / answered) * 1e6,
    cpuShare: cpu === undefined ? undefined : cpu / wallS,
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

const fmt = (value: number | undefined, digits = 0): string => (value === undefined ? "n/a" : value.toFixed(digits));
const verdict = (ok: boolean) => (ok ? "meets the target" : "BELOW the target");

function printRound(round: number, rows: readonly [string, Measurement][]): void {
  for (const [name, m] of rows) {
    console.log(
      `  ${String(round).padStart(5)}  ${name.padEnd(16)} ${fmt(m.rps).padStart(7)} ${fmt(m.p50, 1).padStart(7)} ${fmt(m.p99, 1).padStart(7)} ` +
        `${fmt(m.cpuPerRequestUs).padStart(10)} ${(m.cpuShare === undefined ? "n/a" : `${Math.round(m.cpuShare * 100)}%`).padStart(6)}` +
        (m.problems > 0 ? `  (${m.problems} non-2xx/errors)` : ""),
    );
  }
}

const HEADER = `  ${"round".padStart(5)}  ${"target".padEnd(16)} ${"req/s".padStart(7)} ${"p50 ms".padStart(7)} ${"p99 ms".padStart(7)} ${"cpu µs/req".padStart(10)} ${"cpu".padStart(6)}`;

async function runHttp(): Promise<void> {
  console.log(
    `HTTP: POST /v1/airtime, new key and reference per request; ${CONNECTIONS} connections, pipelining ${PIPELINING}; ` +
      `${ROUNDS} rounds × ${DURATION_S} s per target, targets alternating within each round`,
  );
  const targets = await Promise.all([startNodeServer("simulator"), startNodeServer("express"), startPrismMock()]);
  const [sim, bare, prism] = targets as [Target, Target, Target];
  try {
    for (const target of targets) await load(target.url, { durationS: WARMUP_S }); // JIT, pools

    // First, while the servers hold only the warm-up's state (see docs/performance.md, "The HTTP comparison").
    console.log(`\np99 at a fixed ${FIXED_RATE} req/s (${FIXED_CONNECTIONS} connections)\n${HEADER}`);
    const fixedSim: number[] = [];
    const fixedBare: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const pair: [Target, Target] = round % 2 === 1 ? [sim, bare] : [bare, sim];
      const rows: [string, Measurement][] = [];
      for (const target of pair) {
        const m = await measure(target, {
          durationS: DURATION_S,
          overallRate: FIXED_RATE,
          connections: FIXED_CONNECTIONS,
        });
        rows.push([target.name, m]);
        (target === sim ? fixedSim : fixedBare).push(m.p99);
      }
      printRound(round, rows);
    }

    console.log(`\nthroughput\n${HEADER}`);
    const vsExpress: number[] = [];
    const vsPrism: number[] = [];
    const bareVsPrism: number[] = [];
    const costVsExpress: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      // Rotate the order, so no target always runs first (or right after the heaviest one).
      const order = [0, 1, 2].map((i) => targets[(i + round - 1) % 3] as Target);
      const results = new Map<Target, Measurement>();
      for (const target of order) results.set(target, await measure(target, { durationS: DURATION_S }));
      const s = results.get(sim) as Measurement;
      const b = results.get(bare) as Measurement;
      const p = results.get(prism) as Measurement;
      printRound(round, [
        [sim.name, s],
        [bare.name, b],
        [prism.name, p],
      ]);
      vsExpress.push(s.rps / b.rps);
      vsPrism.push(s.rps / p.rps);
      bareVsPrism.push(b.rps / p.rps);
      if (s.cpuPerRequestUs !== undefined && b.cpuPerRequestUs !== undefined) {
        costVsExpress.push(b.cpuPerRequestUs / s.cpuPerRequestUs);
      }
    }

    const ratioExpress = median(vsExpress);
    const ratioPrism = median(vsPrism);
    const p99 = median(fixedSim);
    console.log("\nmedians over the rounds");
    console.log(
      `  simulator / bare express throughput: ${ratioExpress.toFixed(3)}× (rounds: ${vsExpress.map((r) => r.toFixed(2)).join(", ")}; target ≥ 0.8×) — ${verdict(ratioExpress >= 0.8)}`,
    );
    if (costVsExpress.length > 0) {
      console.log(
        `  simulator / bare express by server CPU per request: ${median(costVsExpress).toFixed(3)}× (rounds: ${costVsExpress.map((r) => r.toFixed(2)).join(", ")})`,
      );
    }
    console.log(
      `  simulator / prism mock throughput:   ${ratioPrism.toFixed(3)}× (rounds: ${vsPrism.map((r) => r.toFixed(2)).join(", ")}; target ≥ 3×) — ${verdict(ratioPrism >= 3)}`,
    );
    // What any server built on express could reach against Prism here: the bare route's own ratio.
    console.log(
      `  bare express / prism mock throughput: ${median(bareVsPrism).toFixed(3)}× (the ceiling for an express server on this machine)`,
    );
    console.log(
      `  p99 at ${FIXED_RATE} req/s: simulator ${p99.toFixed(1)} ms (target ≤ 10 ms) — ${verdict(p99 <= 10)}; ` +
        `bare express ${median(fixedBare).toFixed(1)} ms on the same machine`,
    );
  } finally {
    await Promise.all(targets.map((t) => t.stop()));
  }
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

if (ONLY !== "pending") await runHttp();
if (ONLY !== "http") await runPending();
