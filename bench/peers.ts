/**
 * The bench's peers that are not dependencies of the package: WireMock (a
 * JVM) and Mockoon, installed on demand by `npm run bench:peers` into
 * `.tmp/bench-peers`. Each is skipped with a note when it (or Java) is
 * missing, so `npm run bench` works without them.
 *
 * WireMock gets its most favourable setup: no request journal, three stubs
 * (the POST echoes the reference through the response-template transformer,
 * the GETs answer a fixed body), and a longer warm-up than the node servers
 * so that the JIT has compiled the hot path before anything is measured.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { freePort, startProcess } from "../src/harness/child-process.ts";
import { BALANCE_BODY, BENCH_TOKEN, LOOKUP_BODY } from "./requests.ts";

export interface PeerTarget {
  readonly name: string;
  readonly url: string;
  /** The server's own process: for the JVM too, its CPU time is measured. */
  readonly pid: number | undefined;
  /** Seconds of load per request before the measured rounds (the JIT needs longer than V8). */
  readonly warmupS: number;
  readonly stop: () => Promise<void>;
}

/** Seconds of load per request that WireMock gets before the rounds, for the JVM's JIT (C2). */
export const WIREMOCK_WARMUP_S = 15;

const PEERS_DIR = ".tmp/bench-peers/node_modules";

/** The standalone jar shipped inside the `wiremock` npm package, if installed. */
export function findWiremockJar(root: string): string | undefined {
  const dir = resolve(root, PEERS_DIR, "wiremock/build");
  if (!existsSync(dir)) return undefined;
  const jar = readdirSync(dir).find((name) => /^wiremock.*standalone.*\.jar$/.test(name));
  return jar === undefined ? undefined : resolve(dir, jar);
}

function hasJava(): boolean {
  try {
    execFileSync("java", ["-version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** WireMock's stub mappings for the bench's three requests, bodies of the simulator's shape. */
export function wiremockMappings(lookupBody: string, balanceBody: string): object {
  const json = { "content-type": "application/json; charset=utf-8" };
  return {
    mappings: [
      {
        request: { method: "POST", url: "/v1/airtime" },
        response: {
          status: 200,
          headers: json,
          body: `{"id":"ord_1","reference":"{{jsonPath request.body '$.reference'}}","status":0,"message":"Pending"}`,
          transformers: ["response-template"],
        },
      },
      {
        request: { method: "GET", urlPattern: "/v1/airtime/[^/]+" },
        response: { status: 200, headers: json, body: lookupBody },
      },
      { request: { method: "GET", url: "/v1/balance" }, response: { status: 200, headers: json, body: balanceBody } },
    ],
  };
}

/** Polls `GET /v1/balance` until the server answers, or gives up when it exits or after 60 s. */
async function waitUntilAnswering(url: string, exited: () => boolean, name: string): Promise<void> {
  for (let tries = 0; ; tries++) {
    try {
      await fetch(`${url}/v1/balance`, { headers: { authorization: `Bearer ${BENCH_TOKEN}` } });
      return;
    } catch {
      if (tries > 600 || exited()) throw new Error(`${name} did not start`);
      await new Promise((done) => setTimeout(done, 100));
    }
  }
}

export async function startWiremock(root: string): Promise<PeerTarget | undefined> {
  const jar = findWiremockJar(root);
  if (jar === undefined) {
    console.log("wiremock: skipped, not installed (npm run bench:peers to compare)");
    return undefined;
  }
  if (!hasJava()) {
    console.log("wiremock: skipped, no Java runtime (java -version failed)");
    return undefined;
  }
  const stubs = resolve(root, ".tmp/bench-wiremock");
  mkdirSync(resolve(stubs, "mappings"), { recursive: true });
  writeFileSync(resolve(stubs, "mappings/bench.json"), JSON.stringify(wiremockMappings(LOOKUP_BODY, BALANCE_BODY)));
  const port = await freePort();
  const args = ["-jar", jar, "--port", String(port), "--bind-address", "127.0.0.1"];
  args.push("--root-dir", stubs, "--no-request-journal", "--disable-banner");
  // java is the child itself (no wrapper script), so its pid is the server's.
  const server = startProcess("java", args, { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
  const url = `http://127.0.0.1:${port}`;
  await waitUntilAnswering(url, () => server.child.exitCode !== null, "wiremock");
  const name = "wiremock";
  return { name, url, pid: server.child.pid, warmupS: WIREMOCK_WARMUP_S, stop: () => server.stop() };
}

export async function startMockoon(root: string, warmupS: number): Promise<PeerTarget | undefined> {
  const entry = resolve(root, PEERS_DIR, "@mockoon/cli/bin/run.js");
  if (!existsSync(entry)) {
    console.log("mockoon: skipped, @mockoon/cli is not installed (npm run bench:peers to compare)");
    return undefined;
  }
  const port = await freePort();
  // Its entry run by this node directly, so the pid measured is the server's own.
  const args = [entry, "start", "--data", resolve(root, "spec/openapi.yaml"), "--port", String(port)];
  // Its favourable setup too: no log file written per request, no admin API.
  args.push("--disable-log-to-file", "--disable-admin-api");
  const server = startProcess(process.execPath, args, { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
  const url = `http://127.0.0.1:${port}`;
  await waitUntilAnswering(url, () => server.child.exitCode !== null, "mockoon");
  return { name: "mockoon", url, pid: server.child.pid, warmupS, stop: () => server.stop() };
}
