/**
 * Drives load from a separate process: `wrk` when it is on PATH (Debian's
 * `wrk` package), else autocannon in a child process. Either way the bench
 * process only waits, so it never competes with the server for its core.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import type { AutocannonRun } from "./autocannon-load.ts";
import { type Endpoint, type LoadResult, parseWrkOutput, wrkArgs, wrkScript } from "./requests.ts";

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, "..");
const scripts = mkdtempSync(join(tmpdir(), "airtime-bench-"));

export async function hasWrk(): Promise<boolean> {
  try {
    await run("wrk", ["--version"]);
    return true;
  } catch (error) {
    // `wrk --version` prints its usage and exits 1: found, all the same.
    return (error as { code?: unknown }).code === 1;
  }
}

export interface LoadOptions {
  readonly url: string;
  readonly endpoint: Endpoint;
  readonly durationS: number;
  readonly connections: number;
  /** Unique per measurement: the POST's keys and references start with it. */
  readonly prefix: string;
}

let scriptCount = 0;

export async function loadWithWrk(options: LoadOptions): Promise<LoadResult> {
  const scriptPath = join(scripts, `load-${++scriptCount}.lua`);
  writeFileSync(scriptPath, wrkScript(options.endpoint, options.prefix));
  const args = wrkArgs({ ...options, scriptPath, threads: 1 });
  const { stdout } = await run("wrk", args, { maxBuffer: 1 << 20 });
  return parseWrkOutput(stdout);
}

export async function loadWithAutocannon(options: LoadOptions & { overallRate?: number }): Promise<LoadResult> {
  const spec: AutocannonRun = options;
  const { stdout } = await run(
    process.execPath,
    ["--import", "tsx", resolve(ROOT, "bench/autocannon-load.ts"), JSON.stringify(spec)],
    { cwd: ROOT, maxBuffer: 1 << 20 },
  );
  const line = stdout.split("\n").find((l) => l.startsWith("AUTOCANNON_RESULT "));
  if (line === undefined) throw new Error(`autocannon printed no result:\n${stdout.slice(0, 2000)}`);
  return JSON.parse(line.slice("AUTOCANNON_RESULT ".length)) as LoadResult;
}
