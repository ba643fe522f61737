/**
 * The dynamic half of `scripts/structure-report.ts`, run in a child process
 * against one tree (`npx tsx scripts/structure-probe.ts TREE`): which source
 * files of TREE run for one `POST /v1/airtime`, and which files of
 * `src/webhooks/` run between an order's final status and its delivered
 * webhook. V8's precise coverage counts the functions called between two
 * snapshots; a file counts when any of its functions ran. Prints JSON.
 */
import { createServer } from "node:http";
import { Session } from "node:inspector/promises";
import type { AddressInfo } from "node:net";
import { join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type * as PackageApi from "../src/index.ts";

const tree = resolve(process.argv[2] ?? ".");
const src = join(tree, "src");
const api = (await import(pathToFileURL(join(src, "index.ts")).href)) as typeof PackageApi;

const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });

/** The src files (relative to src/) with a function called since the last snapshot; taking it resets the counts. */
async function filesRunSinceLastSnapshot(): Promise<string[]> {
  const { result } = await session.post("Profiler.takePreciseCoverage");
  const files = new Set<string>();
  for (const script of result) {
    if (!script.url.startsWith("file:")) continue;
    const path = fileURLToPath(script.url);
    if (!path.startsWith(`${src}/`)) continue;
    if (script.functions.some((fn) => fn.ranges.some((range) => range.count > 0))) files.add(relative(src, path));
  }
  return [...files].sort();
}

// A plain receiver, not the package's inbox: the inbox lives in src/webhooks/ and would count itself.
const arrived = new Map<string, () => void>();
const receiver = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk: Buffer) => (body += chunk.toString()));
  req.on("end", () => {
    res.writeHead(200).end();
    for (const [reference, resolveArrival] of arrived) if (body.includes(reference)) resolveArrival();
  });
});
await new Promise<void>((done) => receiver.listen(0, "127.0.0.1", done));
const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;

const TOKEN = "tok_structure_probe";
const PENDING_MS = 1000;
const sim = await api.createSimulator({
  clock: "virtual",
  timing: `${PENDING_MS}ms`,
  seed: 7,
  failureRate: 0,
  demo: { token: TOKEN, webhook: { url: webhookUrl, secrets: [api.generateWebhookSecret()] } },
});
const url = await sim.listen();

let counter = 0;
async function post(): Promise<string> {
  const reference = `PROBE-${++counter}`;
  const response = await fetch(`${url}/v1/airtime`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ account: "0712345678", amount: 100, currency: "KES", reference }),
  });
  if (response.status >= 300) throw new Error(`POST answered ${response.status}: ${await response.text()}`);
  await response.text();
  return reference;
}

async function deliver(reference: string): Promise<void> {
  const delivered = new Promise<void>((done) => arrived.set(reference, done));
  await sim.clock.advance(PENDING_MS);
  await delivered;
  // Settles the attempt: its outcome is recorded before the snapshot.
  await sim.clock.advance(0);
}

// Warm up: the first requests and deliveries load modules and fill caches once.
for (let i = 0; i < 3; i++) await deliver(await post());

await filesRunSinceLastSnapshot();
const reference = await post();
const postFiles = await filesRunSinceLastSnapshot();
await deliver(reference);
const deliveryFiles = (await filesRunSinceLastSnapshot()).filter((file) => file.startsWith("webhooks/"));

await sim.close();
await new Promise((done) => receiver.close(done));
session.disconnect();
console.log(JSON.stringify({ postFiles, deliveryFiles }));
