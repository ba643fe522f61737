/**
 * The servers under load, each run in its own process so that the load
 * generator never shares their event loop: `tsx bench/servers.ts KIND` with
 * KIND `simulator`, `express` (bare express 5) or `node` (bare node:http).
 * Prints `READY <url>` once listening.
 *
 * The two bare servers are the baselines: they answer the bench's three
 * requests with a body of the simulator's shape and do nothing else —
 * `POST /v1/airtime` parses the JSON body and echoes its reference, the two
 * GETs answer a fixed body.
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { createSimulator } from "../src/simulator/create-simulator.ts";
import { BALANCE_BODY, BENCH_LOOKUP_REFERENCE, BENCH_TOKEN, LOOKUP_BODY } from "./requests.ts";

interface Running {
  readonly url: string;
  readonly close: () => Promise<void>;
}

async function startSimulator(): Promise<Running> {
  const sim = await createSimulator({
    clock: "real",
    seed: 1,
    // Every order is scheduled and finalised during the run, like in production use.
    timing: "2s",
    demo: { token: BENCH_TOKEN, balance: 1_000_000_000 },
    onError: (error) => console.error(error),
  });
  const url = await sim.listen(0, "127.0.0.1");
  // The order the lookup requests read: to a magic test account whose orders stay pending, so the
  // order cap, which the POST rounds reach, never evicts it (nothing pending is evicted).
  const placed = await fetch(`${url}/v1/airtime`, {
    method: "POST",
    headers: { authorization: `Bearer ${BENCH_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ account: "0700000003", amount: 10, currency: "KES", reference: BENCH_LOOKUP_REFERENCE }),
  });
  if (placed.status !== 200) throw new Error(`placing the lookup order: ${placed.status}`);
  return { url, close: () => sim.close() };
}

function listening(server: ReturnType<typeof createServer>): Promise<Running> {
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}`, close: () => new Promise((done) => server.close(() => done())) });
    });
  });
}

/** express 5 with `express.json()` and the three routes, default settings. */
function startBareExpress(): Promise<Running> {
  const app = express();
  app.use(express.json());
  app.post("/v1/airtime", (req, res) => {
    res.json({ id: "ord_1", reference: (req.body as { reference?: string }).reference, status: 0, message: "Pending" });
  });
  app.get("/v1/airtime/:reference", (_req, res) => {
    res.type("application/json").send(LOOKUP_BODY);
  });
  app.get("/v1/balance", (_req, res) => {
    res.type("application/json").send(BALANCE_BODY);
  });
  return listening(createServer(app));
}

function answer(res: ServerResponse, text: string): void {
  res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** The limit: node:http that reads and parses the JSON body, and answers. */
function startBareNode(): Promise<Running> {
  return listening(
    createServer((req, res) => {
      if (req.method === "POST") {
        const chunks: Buffer[] = [];
        req.on("data", (chunk: Buffer) => chunks.push(chunk));
        req.on("end", () => {
          const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { reference?: string };
          answer(res, JSON.stringify({ id: "ord_1", reference: body.reference, status: 0, message: "Pending" }));
        });
        return;
      }
      answer(res, req.url?.startsWith("/v1/balance") === true ? BALANCE_BODY : LOOKUP_BODY);
    }),
  );
}

const STARTERS: Record<string, () => Promise<Running>> = {
  simulator: startSimulator,
  express: startBareExpress,
  node: startBareNode,
};

const start = STARTERS[process.argv[2] ?? ""];
if (start === undefined) {
  console.error("usage: tsx bench/servers.ts simulator|express|node");
  process.exit(2);
}
const server = await start();
console.log(`READY ${server.url}`);
process.on("SIGTERM", () => {
  void server.close().then(() => process.exit(0));
});
