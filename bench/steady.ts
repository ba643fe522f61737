/**
 * `npm run bench:steady`: does POST throughput hold as orders accumulate?
 * `serve --quiet --max-orders N` in its own process, `wrk -t1` in another
 * placing a new order per request at full speed, for five minutes in slices
 * of a minute (each slice one wrk run, so throughput and p99 are known per
 * minute), after 5 s of warm-up. The cap is reached within the run, so the later minutes pay for
 * what the first did not: eviction of the oldest final orders, the indexes
 * kept over hundreds of thousands of orders, packing, and the garbage
 * collector walking a larger heap.
 *
 * Verdict: the last slice's throughput within 10 % of the first's. On a
 * machine shared with other work throughput also moves with the neighbours,
 * so the server's CPU µs per order is printed per slice too — that one moves
 * only with the server's own work.
 *
 * Options (environment): STEADY_SECONDS (300), STEADY_SLICE_SECONDS (60),
 * STEADY_MAX_ORDERS (200000), STEADY_CONNECTIONS (32); diagnostics:
 * STEADY_CPU_PROF=DIR (a CPU profile of the server, written when it stops),
 * STEADY_SERVER_FLAGS="--trace-gc …" (more node flags for the server),
 * STEADY_SERVER_LOG=FILE (the server's output, `--trace-gc` lines among it).
 */
import { createWriteStream } from "node:fs";
import { resolve } from "node:path";
import { hasWrk, loadWithWrk } from "./load.ts";
import { cpuSeconds, residentMb } from "./process-cpu.ts";
import { startServe } from "./serve-targets.ts";

const ROOT = resolve(import.meta.dirname, "..");
const SECONDS = Number(process.env.STEADY_SECONDS ?? 300);
const SLICE_S = Number(process.env.STEADY_SLICE_SECONDS ?? 60);
const MAX_ORDERS = Number(process.env.STEADY_MAX_ORDERS ?? 200_000);
const CONNECTIONS = Number(process.env.STEADY_CONNECTIONS ?? 32);
const BOUND = 0.1;
const WARMUP_S = 5;

interface SteadySlice {
  readonly rps: number;
  readonly p99Ms: number;
  readonly cpuUs: number | undefined;
  readonly problems: number;
}

function serverFlags(): string[] {
  const dir = process.env.STEADY_CPU_PROF;
  const extra = (process.env.STEADY_SERVER_FLAGS ?? "").split(" ").filter((flag) => flag !== "");
  return [...(dir === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${dir}`]), ...extra];
}

const within = (last: number, first: number): boolean => Math.abs(last - first) <= BOUND * first;

if (!(await hasWrk())) {
  console.log("bench:steady needs wrk (Debian's wrk package) to load at full speed; skipped");
  process.exit(0);
}
const logFile = process.env.STEADY_SERVER_LOG;
const log = logFile === undefined ? undefined : createWriteStream(logFile);
const server = await startServe(ROOT, {
  log: "quiet",
  flags: ["--max-orders", String(MAX_ORDERS)],
  nodeFlags: serverFlags(),
  ...(log === undefined ? {} : { onOutput: (chunk: Buffer) => log.write(chunk) }),
});
const count = Math.max(1, Math.round(SECONDS / SLICE_S));
console.log(
  `steady: ${count} × ${SLICE_S} s of POST /v1/airtime at full speed (wrk -t1 -c${CONNECTIONS}) ` +
    `against serve --quiet --max-orders ${MAX_ORDERS}; server pid ${server.pid}`,
);
const slices: SteadySlice[] = [];
let placed = 0;
try {
  // Not counted: the JIT's first seconds would make any first minute look slow.
  const warmup = await loadWithWrk({
    url: server.url,
    endpoint: "post",
    durationS: WARMUP_S,
    connections: CONNECTIONS,
    prefix: `steady-warmup-${Date.now().toString(36)}`,
  });
  placed += warmup.requests;
  for (let index = 1; index <= count; index++) {
    const before = cpuSeconds(server.pid);
    const prefix = `steady-${Date.now().toString(36)}-${index}`;
    const result = await loadWithWrk({
      url: server.url,
      endpoint: "post",
      durationS: SLICE_S,
      connections: CONNECTIONS,
      prefix,
    });
    const after = cpuSeconds(server.pid);
    const cpuUs =
      before === undefined || after === undefined || result.requests === 0
        ? undefined
        : ((after - before) / result.requests) * 1e6;
    placed += result.requests;
    slices.push({ rps: result.rps, p99Ms: result.p99Ms, cpuUs, problems: result.problems });
    console.log(
      `slice ${index}/${count}: ${Math.round(result.rps)} req/s (${Math.round(result.rps * 60)} per minute), ` +
        `p99 ${result.p99Ms.toFixed(1)} ms, cpu ${cpuUs === undefined ? "n/a" : cpuUs.toFixed(0)} µs/order, ` +
        `${result.problems} errors, RSS ${residentMb(server.pid)?.toFixed(0) ?? "n/a"} MB; ` +
        `orders placed so far ≈ ${placed}${placed > MAX_ORDERS ? " (cap reached)" : ""}`,
    );
  }
} finally {
  await server.stop();
  log?.end();
}

const first = slices[0] as SteadySlice;
const last = slices.at(-1) as SteadySlice;
const ratio = last.rps / first.rps;
const held = within(last.rps, first.rps);
console.log(
  `\n${held ? "met" : "MISSED"}: the last minute's throughput ${Math.round(last.rps)} req/s is ` +
    `${(ratio * 100).toFixed(0)} % of the first's ${Math.round(first.rps)} (within ${BOUND * 100} %: ${held ? "yes" : "no"})`,
);
if (first.cpuUs !== undefined && last.cpuUs !== undefined)
  console.log(
    `cpu per order: first ${first.cpuUs.toFixed(0)} µs, last ${last.cpuUs.toFixed(0)} µs ` +
      `(${((last.cpuUs / first.cpuUs) * 100).toFixed(0)} %)`,
  );
process.exitCode = held && slices.every((slice) => slice.problems === 0) ? 0 : 1;
