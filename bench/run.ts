/**
 * `npm run bench`: the same load, in the same run, against
 *   1. the simulator's `POST /v1/airtime` (auth, validation, a fresh
 *      idempotency key and reference per request, debit, scheduling),
 *   2. a bare express 5 route that only parses JSON and answers,
 *   3. `prism mock spec/openapi.yaml`,
 * then the simulator at a fixed 1,000 req/s for its p99. Prints req/s,
 * p50/p99 and the ratios against the targets (≥ 0.8× express, ≥ 3× Prism,
 * p99 ≤ 10 ms at 1,000 req/s). Each server runs in its own process.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { resolve } from "node:path";
import autocannon, { type Result } from "autocannon";

const ROOT = resolve(import.meta.dirname, "..");
const TOKEN = "bench-token-0001";
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const FIXED_RATE = 1_000;

interface Target {
  readonly name: string;
  readonly url: string;
  readonly stop: () => Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => done(port));
    });
  });
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise((done) => {
      if (child.exitCode !== null) return done();
      child.once("exit", () => done());
      child.kill("SIGTERM");
      setTimeout(() => child.kill("SIGKILL"), 5_000).unref();
    });
}

async function startNodeServer(kind: "simulator" | "express"): Promise<Target> {
  const child = spawn(process.execPath, ["--import", "tsx", resolve(ROOT, "bench/servers.ts"), kind], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((done, fail) => {
    let out = "";
    child.stdout?.on("data", (chunk) => {
      out += chunk;
      const match = /READY (\S+)/.exec(out);
      if (match?.[1] !== undefined) done(match[1]);
    });
    child.once("exit", (code) => fail(new Error(`${kind} server exited ${code}`)));
  });
  return { name: kind === "simulator" ? "simulator" : "bare express 5", url, stop: stopper(child) };
}

async function startPrismMock(): Promise<Target> {
  const port = await freePort();
  const child = spawn(
    resolve(ROOT, "node_modules/.bin/prism"),
    ["mock", resolve(ROOT, "spec/openapi.yaml"), "-p", String(port), "-h", "127.0.0.1", "--errors", "-v", "error"],
    { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] },
  );
  const url = `http://127.0.0.1:${port}`;
  for (let tries = 0; ; tries++) {
    try {
      await fetch(`${url}/v1/balance`, { headers: { authorization: `Bearer ${TOKEN}` } });
      break;
    } catch {
      if (tries > 300 || child.exitCode !== null) throw new Error("prism mock did not start");
      await new Promise((done) => setTimeout(done, 100));
    }
  }
  return { name: "prism mock", url, stop: stopper(child) };
}

function load(
  url: string,
  options: { durationS: number; overallRate?: number; connections?: number },
): Promise<Result> {
  let n = 0;
  const runId = Date.now().toString(36);
  return autocannon({
    url: `${url}/v1/airtime`,
    connections: options.connections ?? CONNECTIONS,
    duration: options.durationS,
    ...(options.overallRate === undefined ? {} : { overallRate: options.overallRate }),
    requests: [
      {
        method: "POST",
        setupRequest(request) {
          n++;
          // A new order every time: fresh idempotency key and reference.
          const key = `bench-${runId}-${n}`;
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

interface Row {
  readonly name: string;
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly non2xx: number;
  readonly errors: number;
}

function row(name: string, result: Result): Row {
  return {
    name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

function printTable(rows: readonly Row[]): void {
  console.log(
    `\n${"target".padEnd(18)} ${"req/s".padStart(9)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)} ${"non-2xx".padStart(8)} ${"errors".padStart(7)}`,
  );
  for (const r of rows) {
    console.log(
      `${r.name.padEnd(18)} ${r.rps.toFixed(0).padStart(9)} ${r.p50.toFixed(1).padStart(8)} ${r.p99.toFixed(1).padStart(8)} ${String(r.non2xx).padStart(8)} ${String(r.errors).padStart(7)}`,
    );
  }
}

const verdict = (ok: boolean) => (ok ? "meets the target" : "BELOW the target");

async function main(): Promise<void> {
  console.log(
    `load: ${CONNECTIONS} connections, ${DURATION_S} s per target, POST /v1/airtime, new key and reference per request`,
  );
  const targets = await Promise.all([startNodeServer("simulator"), startNodeServer("express"), startPrismMock()]);
  const [simTarget, bareTarget] = targets as [Target, Target, Target];
  try {
    // Fixed rate first, while both servers hold little state: p99 at 1,000 req/s, with bare express as the floor.
    const fixedRows: Row[] = [];
    for (const target of [simTarget, bareTarget]) {
      await load(target.url, { durationS: 2, overallRate: FIXED_RATE, connections: 10 }); // warm-up: JIT, pools
      const result = await load(target.url, { durationS: DURATION_S, overallRate: FIXED_RATE, connections: 10 });
      fixedRows.push(row(`${target.name} @${FIXED_RATE}/s`, result));
    }
    const rows: Row[] = [];
    for (const target of targets) {
      await load(target.url, { durationS: 2 }); // warm-up
      const result = await load(target.url, { durationS: DURATION_S });
      rows.push(row(target.name, result));
      console.log(`  ${target.name}: done`);
    }
    const [sim, bare, prism] = rows as [Row, Row, Row];
    const [fixed, fixedBare] = fixedRows as [Row, Row];
    printTable([...rows, ...fixedRows]);
    const vsExpress = sim.rps / bare.rps;
    const vsPrism = sim.rps / prism.rps;
    console.log("");
    console.log(`simulator / bare express: ${vsExpress.toFixed(2)}× (target ≥ 0.8×) — ${verdict(vsExpress >= 0.8)}`);
    console.log(`simulator / prism mock:   ${vsPrism.toFixed(2)}× (target ≥ 3×) — ${verdict(vsPrism >= 3)}`);
    console.log(
      `p99 at ${FIXED_RATE} req/s:     ${fixed.p99.toFixed(1)} ms (target ≤ 10 ms) — ${verdict(fixed.p99 <= 10)}; ` +
        `bare express on the same machine: ${fixedBare.p99.toFixed(1)} ms`,
    );
    if (sim.non2xx + sim.errors > 0)
      console.log(`note: the simulator answered ${sim.non2xx} non-2xx and ${sim.errors} errors`);
  } finally {
    await Promise.all(targets.map((t) => t.stop()));
  }
}

await main();
