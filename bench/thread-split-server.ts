/**
 * The server `bench/thread-split.ts` measures: node:http answering POSTs
 * with a fixed amount of busy work standing in for `serve`'s own, in one of
 * three shapes, chosen by the JSON argument:
 * - `bare`: no work, the ceiling of node:http itself on this machine;
 * - `one`: one thread parses, does the stateless part (`statelessUs`), then
 *   the state part (`stateUs`), and answers: `serve` as it is;
 * - `split`: a worker thread runs HTTP and the stateless part, and hands
 *   each turn's requests to the main thread in one message; the main thread
 *   does the state part and answers in one message: the shape `serve` would
 *   need to use a second core with the memory store.
 *
 * The busy work is a spin on the clock, so the measure is of the shapes
 * alone: what a second thread gives, net of the hand-over, on this machine.
 */
import { createServer } from "node:http";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import type { SplitServerSettings } from "./thread-split-launch.ts";

type Answer = (body: string) => void;
type Handle = (amount: unknown, answer: Answer) => void;

function spin(microseconds: number): void {
  const end = performance.now() + microseconds / 1000;
  while (performance.now() < end);
}

/** Reads each POST's JSON body, spends `statelessUs`, and hands the amount on with a way to answer. */
function listen(settings: SplitServerSettings, handle: Handle, onListening: () => void): void {
  createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const { amount } = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as { amount?: unknown };
      spin(settings.statelessUs);
      handle(amount, (body) => {
        response.writeHead(201, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
        response.end(body);
      });
    });
  }).listen(settings.port, "127.0.0.1", onListening);
}

let placed = 0;
function place(amount: unknown, stateUs: number): string {
  spin(stateUs);
  return JSON.stringify({ id: `ord_${++placed}`, status: 0, amount });
}

/** The worker's side of `split`: requests queued per turn of its loop, answered when the main thread replies. */
function runHttpWorker(settings: SplitServerSettings): void {
  const port = parentPort;
  if (port === null) throw new Error("the HTTP side of split runs on a worker thread");
  const waiting = new Map<number, Answer>();
  let next = 0;
  let batch: [number, unknown][] = [];
  port.on("message", (answers: [number, string][]) => {
    for (const [id, body] of answers) {
      waiting.get(id)?.(body);
      waiting.delete(id);
    }
  });
  const flush = (): void => {
    port.postMessage(batch);
    batch = [];
  };
  listen(
    settings,
    (amount, answer) => {
      const id = next++;
      waiting.set(id, answer);
      if (batch.push([id, amount]) === 1) setImmediate(flush);
    },
    () => port.postMessage("listening"),
  );
}

function main(settings: SplitServerSettings): void {
  const say = () => console.log(`listening on http://127.0.0.1:${settings.port}`);
  if (settings.shape === "bare")
    listen({ ...settings, statelessUs: 0 }, (amount, answer) => answer(place(amount, 0)), say);
  if (settings.shape === "one") listen(settings, (amount, answer) => answer(place(amount, settings.stateUs)), say);
  if (settings.shape !== "split") return;
  // A worker does not inherit tsx's loader on Node 20: it registers it, then loads this file.
  const boot = `import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); })`;
  const worker = new Worker(boot, { eval: true, workerData: settings });
  worker.on("message", (requests: "listening" | [number, unknown][]) => {
    if (requests === "listening") return say();
    worker.postMessage(requests.map(([id, amount]) => [id, place(amount, settings.stateUs)]));
  });
}

if (isMainThread) main(JSON.parse(process.argv[2] ?? "{}") as SplitServerSettings);
else runHttpWorker(workerData as SplitServerSettings);
