/**
 * `serve` itself as bench targets, the way users run it: once with its
 * default request log (a readable line per request on stdout) and once with
 * `--quiet`, so the bench shows what the log costs in the same run. Its
 * stdout is a pipe that the bench reads and discards, like a terminal or a
 * log shipper that keeps up. The same launcher starts `serve` from another
 * tree (an earlier commit's, `bench/baseline-tree.ts`) or with extra flags
 * (`--provider FILE`), under a name of the caller's.
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { BENCH_LOOKUP_REFERENCE, BENCH_TOKEN } from "./requests.ts";

export interface ServeTarget {
  readonly name: string;
  readonly url: string;
  readonly pid: number | undefined;
  readonly warmupS?: number;
  readonly stop: () => Promise<void>;
}

const ADMIN_TOKEN = "bench-admin-token-0001";

/** The lookup order, as `bench/servers.ts` places it: pending for good, so no cap evicts it. */
async function placeLookupOrder(url: string): Promise<void> {
  const placed = await fetch(`${url}/v1/airtime`, {
    method: "POST",
    headers: { authorization: `Bearer ${BENCH_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ account: "0700000003", amount: 10, currency: "KES", reference: BENCH_LOOKUP_REFERENCE }),
  });
  if (placed.status !== 200) throw new Error(`placing the lookup order: ${placed.status}`);
}

export interface ServeOptions {
  readonly log: "default" | "quiet";
  /** Shown in the bench's rows; by default `serve (log)` or `serve --quiet`. */
  readonly name?: string;
  /** More flags for `serve`, e.g. `--provider FILE`. */
  readonly flags?: readonly string[];
  /** Flags for node itself, e.g. `--cpu-prof`, `--trace-gc`. */
  readonly nodeFlags?: readonly string[];
  /** Where the server's output goes once it listens (dropped by default). */
  readonly onOutput?: (chunk: Buffer) => void;
}

export async function startServe(root: string, options: ServeOptions): Promise<ServeTarget> {
  const { log } = options;
  const args = [resolve(root, "bin/airtime-harness.js"), "serve", "--port", "0", "--seed", "1"];
  args.push("--demo-token", BENCH_TOKEN, "--demo-balance", "1000000000", "--admin-token", ADMIN_TOKEN);
  if (log === "quiet") args.push("--quiet");
  args.push(...(options.flags ?? []));
  // The launcher is the server process itself (tsx registered in it), so its pid is the one measured.
  const child = spawn(process.execPath, [...(options.nodeFlags ?? []), ...args], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<void>((done) => child.once("close", () => done()));
  const url = await new Promise<string>((found, failed) => {
    let banner = "";
    const onData = (chunk: Buffer) => {
      banner += chunk.toString("utf8");
      const match = /listening on (http:\/\/\S+)/.exec(banner);
      if (match?.[1] === undefined) return;
      // From here on the request lines are read and dropped, never kept (unless asked for).
      child.stdout.off("data", onData);
      if (options.onOutput !== undefined) child.stdout.on("data", options.onOutput);
      child.stdout.resume();
      found(match[1]);
    };
    child.stdout.on("data", onData);
    void exited.then(() => failed(new Error(`serve (${log}) exited before listening: ${banner}`)));
  });
  await placeLookupOrder(url);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  };
  const name = options.name ?? (log === "quiet" ? "serve --quiet" : "serve (log)");
  return { name, url, pid: child.pid, stop };
}
