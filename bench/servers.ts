/**
 * The servers under load, each run in its own process so that the load
 * generator never shares their event loop: `tsx bench/servers.ts simulator`
 * or `tsx bench/servers.ts express`. Prints `READY <url>` once listening.
 */
import express from "express";
import { createSimulator } from "../src/simulator/create-simulator.ts";

export const BENCH_TOKEN = "bench-token-0001";

async function startSimulator(): Promise<{ url: string; close: () => Promise<void> }> {
  const sim = await createSimulator({
    clock: "real",
    seed: 1,
    // Every order is scheduled and finalised during the run, like in production use.
    timing: "2s",
    demo: { token: BENCH_TOKEN, balance: 1_000_000_000 },
    onError: (error) => console.error(error),
  });
  const url = await sim.listen(0, "127.0.0.1");
  return { url, close: () => sim.close() };
}

/** The baseline: express 5 that only parses JSON and answers. */
async function startBareExpress(): Promise<{ url: string; close: () => Promise<void> }> {
  const app = express();
  app.use(express.json());
  app.post("/v1/airtime", (req, res) => {
    res.json({ id: "ord_1", reference: (req.body as { reference?: string }).reference, status: 0, message: "Pending" });
  });
  return new Promise((resolve) => {
    const server = app.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      resolve({ url: `http://127.0.0.1:${port}`, close: () => new Promise((done) => server.close(() => done())) });
    });
  });
}

const kind = process.argv[2];
const server =
  kind === "simulator" ? await startSimulator() : kind === "express" ? await startBareExpress() : undefined;
if (server === undefined) {
  console.error("usage: tsx bench/servers.ts simulator|express");
  process.exit(2);
}
console.log(`READY ${server.url}`);
process.on("SIGTERM", () => {
  void server.close().then(() => process.exit(0));
});
