/**
 * `npm run bench:soak`: the simulator left running under load with webhooks,
 * as a long load test or CI job leaves it. Three processes besides this one:
 * the simulator (order cap `--max-orders` reached early, a real clock), a
 * webhook receiver, and `wrk` placing a new order per request at the highest
 * rate it can sustain. This process only waits, samples and checks.
 *
 * It runs in slices (a minute by default); each slice is one wrk run, so p99
 * is known per slice. The server reports its memory every second (RSS, the
 * JS heap, and the heap live after the latest full collection). After each
 * slice, keys from earlier slices (evicted by then) are replayed twice: each
 * replay must answer `Idempotent-Replayed: true` with one and the same id, or
 * a replay inside retention would have created a second order.
 *
 * Goals, checked at the end (exit 1 when one fails): memory plateaus (over
 * the last three slices, the live heap and the RSS outside the heap each
 * within 10 %) and RSS peaks under 1.5 GB; p99 of the last slice within
 * 1.5× of the first; no replay creating an order.
 *
 * Options (environment): SOAK_SECONDS (600), SOAK_SLICE_SECONDS (60),
 * SOAK_MAX_ORDERS (50000), SOAK_CONNECTIONS (32), SOAK_RATE (600, or max),
 * SOAK_KEY_RETENTION_SECONDS (120); diagnostics: SOAK_CPU_PROF=DIR,
 * SOAK_SERVER_FLAGS="--trace-gc …", SOAK_SERVER_LOG=FILE (the server's output).
 * Roles (internal): `soak.ts server <maxOrders> <keyRetentionMs> <webhookUrl>`, `soak.ts receiver`.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { writeFileSync } from "node:fs";
import { constants, monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import { resolve } from "node:path";
import { startProcess, type RunningProcess } from "../src/harness/child-process.ts";
import { createSimulator } from "../src/simulator/create-simulator.ts";
import { hasWrk, loadWithAutocannon, loadWithWrk } from "./load.ts";
import { BENCH_TOKEN, type LoadResult, orderBody } from "./requests.ts";
import { residentMb } from "./process-cpu.ts";
import { median, type Slice, soakVerdicts } from "./soak-verdict.ts";

const ROOT = resolve(import.meta.dirname, "..");
const ADMIN_TOKEN = "soak-admin-token-0123456789";
const WEBHOOK_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const MEMORY_SAMPLE_MS = 1_000;
const MB = 2 ** 20;
const REPLAYS_PER_SLICE = 50;
const RETENTION_MARGIN_MS = 10_000;

async function serveSimulator(maxOrders: number, keyRetentionMs: number, webhookUrl: string): Promise<void> {
  const sim = await createSimulator({
    clock: "real",
    seed: 1,
    timing: "2s",
    maxOrders,
    idempotencyRetentionMs: keyRetentionMs,
    adminToken: ADMIN_TOKEN,
    demo: { token: BENCH_TOKEN, balance: 1_000_000_000_000, webhook: { url: webhookUrl, secrets: [WEBHOOK_SECRET] } },
    onError: (error) => console.error(error),
  });
  console.log(`READY ${await sim.listen(0, "127.0.0.1")}`);
  // How long the event loop was held, per slice: pauses (GC, long tasks) show here before they show in p99.
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  setInterval(() => {
    console.log(`LOOP_DELAY p99 ${(delay.percentile(99) / 1e6).toFixed(1)} max ${(delay.max / 1e6).toFixed(1)}`);
    delay.reset();
  }, 10_000).unref();
  // The heap used just after the latest full collection: what is live, without the garbage between collections.
  let liveMb = Number.NaN;
  new PerformanceObserver((list) => {
    const full = list.getEntries().some((entry) => {
      return (entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR;
    });
    if (full) liveMb = process.memoryUsage().heapUsed / MB;
  }).observe({ entryTypes: ["gc"] });
  setInterval(() => {
    const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
    const mb = (bytes: number) => (bytes / MB).toFixed(1);
    console.log(
      `MEMORY rss ${mb(rss)} heapUsed ${mb(heapUsed)} heapTotal ${mb(heapTotal)} external ${mb(external)} live ${liveMb}`,
    );
  }, MEMORY_SAMPLE_MS).unref();
}

function serveReceiver(): void {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received++;
      res.end();
    });
  });
  server.listen(0, "127.0.0.1", () => {
    console.log(`READY http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  setInterval(() => console.log(`RECEIVED ${received}`), 5_000).unref();
}

async function start(role: string, ...args: string[]): Promise<{ process: RunningProcess; url: string }> {
  // SOAK_CPU_PROF=DIR: a CPU profile of the simulator's process, written to DIR when it stops;
  // SOAK_SERVER_FLAGS: more node flags for it (say --trace-gc, to see what holds the event loop).
  const server = role === "server";
  const profile = server && process.env.SOAK_CPU_PROF !== undefined;
  const flags = [
    ...(profile ? ["--cpu-prof", `--cpu-prof-dir=${process.env.SOAK_CPU_PROF}`] : []),
    ...(server ? (process.env.SOAK_SERVER_FLAGS ?? "").split(" ").filter((flag) => flag !== "") : []),
  ];
  const child = startProcess(
    process.execPath,
    [...flags, "--import", "tsx", resolve(ROOT, "bench/soak.ts"), role, ...args],
    {
      cwd: ROOT,
    },
  );
  const ready = await child.waitFor(/READY (\S+)/, 60_000);
  if (ready.kind !== "matched") throw new Error(`the ${role} did not start:\n${child.output().slice(-2000)}`);
  return { process: child, url: ready.match[1] as string };
}

interface MemorySample {
  readonly rss: number;
  readonly heapUsed: number;
  readonly heapTotal: number;
  readonly external: number;
  /** The heap used after the latest full collection. */
  readonly live: number;
}

/** The server's memory samples (MB) in its output. */
function memorySamples(output: string): MemorySample[] {
  const lines = output.matchAll(/MEMORY rss (\S+) heapUsed (\S+) heapTotal (\S+) external (\S+) live (\S+)/g);
  return Array.from(lines, ([, rss, heapUsed, heapTotal, external, live]) => {
    return {
      rss: Number(rss),
      heapUsed: Number(heapUsed),
      heapTotal: Number(heapTotal),
      external: Number(external),
      live: Number(live),
    };
  });
}

/** Replays a probe twice; true when both answer its own id, as a replay. */
async function replaysAsOne(url: string, probe: Probe): Promise<boolean> {
  const { key } = probe;
  for (let i = 0; i < 2; i++) {
    const reply = await fetch(`${url}/v1/airtime`, {
      method: "POST",
      headers: { authorization: `Bearer ${BENCH_TOKEN}`, "content-type": "application/json", "idempotency-key": key },
      body: orderBody(key),
    });
    const body = (await reply.json()) as { id?: string };
    if (reply.status !== 200 || reply.headers.get("idempotent-replayed") !== "true" || body.id === undefined) {
      console.log(
        `replay of ${key}: HTTP ${reply.status}, replayed ${reply.headers.get("idempotent-replayed")}, ${JSON.stringify(body).slice(0, 300)}`,
      );
      return false;
    }
    if (body.id !== probe.id) {
      console.log(`replay of ${key}: id ${body.id}, placed as ${probe.id}`);
      return false;
    }
  }
  return true;
}

async function adminStats(url: string): Promise<{ orders: { retained: number; evicted: number; max: number } }> {
  const reply = await fetch(`${url}/_sim/stats`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  return (await reply.json()) as { orders: { retained: number; evicted: number; max: number } };
}

/** Drives one slice of load. */
function loadSlice(options: {
  url: string;
  rate: number | "max";
  durationS: number;
  connections: number;
  prefix: string;
}): Promise<LoadResult> {
  return options.rate === "max"
    ? loadWithWrk({ ...options, endpoint: "post" })
    : loadWithAutocannon({ ...options, endpoint: "post", overallRate: options.rate });
}

/** An order this process placed itself during a slice, to replay later. */
interface Probe {
  readonly key: string;
  readonly id: string;
  /** Wall-clock ms when it was answered (the simulator runs on the real clock). */
  readonly placedAt: number;
}

async function placeProbe(url: string, key: string): Promise<Probe | undefined> {
  const reply = await fetch(`${url}/v1/airtime`, {
    method: "POST",
    headers: { authorization: `Bearer ${BENCH_TOKEN}`, "content-type": "application/json", "idempotency-key": key },
    body: orderBody(key),
  });
  const body = (await reply.json()) as { id?: string };
  return reply.status === 200 && body.id !== undefined ? { key, id: body.id, placedAt: Date.now() } : undefined;
}

/**
 * Places `count` probe orders spread over `durationS`, among the load: the
 * load generator cannot say which of its keys were answered, these are known.
 */
async function placeProbes(url: string, prefix: string, count: number, durationS: number): Promise<Probe[]> {
  const probes: Probe[] = [];
  for (let i = 0; i < count; i++) {
    await new Promise((done) => setTimeout(done, (durationS * 1000) / (count + 1)));
    const probe = await placeProbe(url, `${prefix}-probe-${i}`);
    if (probe !== undefined) probes.push(probe);
  }
  return probes;
}

async function soak(): Promise<void> {
  const seconds = Number(process.env.SOAK_SECONDS ?? 600);
  const sliceSeconds = Number(process.env.SOAK_SLICE_SECONDS ?? 60);
  const rate = process.env.SOAK_RATE === "max" ? "max" : Number(process.env.SOAK_RATE ?? 600);
  const maxOrders = Number(process.env.SOAK_MAX_ORDERS ?? 50_000);
  const keyRetentionS = Number(process.env.SOAK_KEY_RETENTION_SECONDS ?? 120);
  const connections = Number(process.env.SOAK_CONNECTIONS ?? 32);
  const sliceCount = Math.max(1, Math.round(seconds / sliceSeconds));
  if (rate === "max" && !(await hasWrk())) throw new Error("SOAK_RATE=max needs wrk (Debian: apt-get install wrk)");

  const receiver = await start("receiver");
  const server = await start("server", String(maxOrders), String(keyRetentionS * 1000), receiver.url);
  const pid = server.process.child.pid as number;
  console.log(
    `soak: ${sliceCount} × ${sliceSeconds} s at ${rate === "max" ? "wrk -t1 unpaced" : `${rate} req/s`}, ` +
      `${connections} connections, --max-orders ${maxOrders}, key retention ${keyRetentionS} s, ` +
      `webhooks to ${receiver.url}; server pid ${pid}, RSS at start ${(residentMb(pid) ?? 0).toFixed(0)} MB`,
  );

  const slices: Slice[] = [];
  let serverOutputSeen = 0;
  /** What the server printed since the last call. */
  const freshOutput = (): string => {
    const output = server.process.output();
    const fresh = output.slice(serverOutputSeen);
    serverOutputSeen = output.length;
    return fresh;
  };
  const probesBySlice: Probe[][] = [];
  let badReplays = 0;
  let replays = 0;
  try {
    for (let index = 0; index < sliceCount; index++) {
      const prefix = `soak-${index}`;
      const probes = placeProbes(server.url, prefix, REPLAYS_PER_SLICE, sliceSeconds * 0.9);
      const load = await loadSlice({ url: server.url, rate, durationS: sliceSeconds, connections, prefix });
      probesBySlice.push(await probes);
      const output = freshOutput();
      const memory = memorySamples(output);
      const sampled = (field: keyof MemorySample) => memory.map((sample) => sample[field]);
      const loopDelays = [...output.matchAll(/LOOP_DELAY p99 \S+ max (\S+)/g)].map((match) => Number(match[1]));
      // Only probes of earlier slices well inside the key retention (a margin for the replays' own time).
      const keptSince = Date.now() - keyRetentionS * 1000 + RETENTION_MARGIN_MS;
      const earlier = probesBySlice
        .slice(0, index)
        .flat()
        .filter((probe) => probe.placedAt >= keptSince);
      const sample = Array.from({ length: Math.min(REPLAYS_PER_SLICE, earlier.length) }, (_, n) => {
        return earlier[Math.floor((n * earlier.length) / REPLAYS_PER_SLICE)] as Probe;
      });
      for (const probe of sample) {
        replays++;
        if (!(await replaysAsOne(server.url, probe))) badReplays++;
      }
      const slice: Slice = {
        rps: load.rps,
        p99Ms: load.p99Ms,
        problems: load.problems,
        peakRssMb: Math.max(...sampled("rss")),
        medianRssMb: median(sampled("rss")),
        medianHeapUsedMb: median(sampled("heapUsed")),
        liveHeapMb: memory.at(-1)?.live ?? Number.NaN,
        offHeapMb: median(memory.map((sample) => sample.rss - sample.heapTotal)),
      };
      slices.push(slice);
      console.log(
        `slice ${index + 1}/${sliceCount}: ${Math.round(load.rps)} req/s, p50 ${load.p50Ms.toFixed(1)} ms, ` +
          `p99 ${load.p99Ms.toFixed(1)} ms, ${load.problems} errors, ` +
          `RSS median ${slice.medianRssMb.toFixed(0)} MB (peak ${slice.peakRssMb.toFixed(0)}, ` +
          `outside the heap ${slice.offHeapMb.toFixed(0)}), heap used median ${slice.medianHeapUsedMb.toFixed(0)} MB ` +
          `(live ${slice.liveHeapMb.toFixed(0)}), external ${median(sampled("external")).toFixed(0)} MB, ` +
          `server event-loop delay max ${Math.max(...loopDelays).toFixed(0)} ms, ` +
          `replays ${sample.length} (bad so far ${badReplays})`,
      );
    }
    const stats = await adminStats(server.url);
    const received = /RECEIVED (\d+)\s*$/.exec(receiver.process.output().trimEnd())?.[1] ?? "?";
    const placed = slices.reduce((sum, s) => sum + s.rps * sliceSeconds, 0);
    console.log(
      `\norders placed ≈ ${Math.round(placed)}; retained ${stats.orders.retained} of a cap of ${stats.orders.max}; ` +
        `evicted ${stats.orders.evicted}; webhooks received ${received}`,
    );
    const perSlice = (mb: (slice: Slice) => number) => slices.map((s) => mb(s).toFixed(0)).join(", ");
    console.log(`RSS medians per slice (MB): ${perSlice((s) => s.medianRssMb)}`);
    console.log(`RSS peaks per slice (MB): ${perSlice((s) => s.peakRssMb)}`);
    console.log(`heap used medians per slice (MB): ${perSlice((s) => s.medianHeapUsedMb)}`);
    console.log(`live heap per slice (MB): ${perSlice((s) => s.liveHeapMb)}`);
    console.log(`RSS outside the heap per slice (MB): ${perSlice((s) => s.offHeapMb)}`);
    let failed = false;
    for (const verdict of soakVerdicts(slices, { replays, badReplays })) {
      console.log(`${verdict.met ? "met" : "NOT MET"}: ${verdict.text}`);
      failed ||= !verdict.met;
    }
    process.exitCode = failed ? 1 : 0;
  } finally {
    // SOAK_SERVER_LOG=FILE: what the server printed (its --trace-gc lines, say).
    if (process.env.SOAK_SERVER_LOG !== undefined) writeFileSync(process.env.SOAK_SERVER_LOG, server.process.output());
    await server.process.stop();
    await receiver.process.stop();
  }
}

const [role, ...args] = process.argv.slice(2);
// A stop by signal exits normally, so that `--cpu-prof` (via NODE_OPTIONS) writes its profile.
if (role === "server") process.once("SIGTERM", () => process.exit(0));
if (role === "server") await serveSimulator(Number(args[0]), Number(args[1]), args[2] as string);
else if (role === "receiver") serveReceiver();
else await soak();
