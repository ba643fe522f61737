/**
 * Child processes in tests: `airtime-harness` itself (`CLI_BIN`)
 * and Stoplight Prism, through the product's own process plumbing.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { type RunningProcess, startProcess } from "../../src/harness/child-process.ts";
import { type PrismProcess, startPrismProcess } from "../../src/harness/prism.ts";

export { freePort } from "../../src/harness/child-process.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const PRISM_BIN = resolve(ROOT, "node_modules/.bin/prism");
export const PUBLIC_SPEC = resolve(ROOT, "spec/openapi.yaml");
/**
 * The `airtime-harness` the tests start: the development launcher, which runs the sources through tsx,
 * or what `AIRTIME_TEST_CLI` names. `.ci/run` names the build `npm ci` made of the same checkout
 * (`dist/cli.js`, the package's bin), which starts in half the CPU of the launcher's module loading.
 */
export const CLI_BIN = process.env.AIRTIME_TEST_CLI ?? resolve(ROOT, "bin/airtime-harness.js");

export function prismAvailable(): boolean {
  return existsSync(PRISM_BIN) && existsSync(PUBLIC_SPEC);
}

/** `prism <args>` (e.g. `["mock", PUBLIC_SPEC]`) on a free port, once it listens. */
export function startPrism(args: readonly string[]): Promise<PrismProcess> {
  return startPrismProcess(PRISM_BIN, args);
}

/** `airtime-harness <args>` as a child process; the caller stops it. */
export function runCli(args: readonly string[]): RunningProcess {
  return startProcess(process.execPath, [CLI_BIN, ...args]);
}

/**
 * `airtime-harness serve --port 0 --clock real <args>` as a child process, once it listens (within
 * `startTimeoutMs`: a stress beside a busy loop on each core gives it longer); the caller stops it.
 */
export async function startServe(
  args: readonly string[],
  startTimeoutMs?: number,
): Promise<{ server: RunningProcess; url: string }> {
  const server = runCli(["serve", "--port", "0", "--clock", "real", ...args]);
  try {
    return { server, url: await listeningUrl(server, startTimeoutMs) };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** The base URL a `serve` child prints once it listens. */
async function listeningUrl(server: RunningProcess, timeoutMs = 30_000): Promise<string> {
  const started = await server.waitFor(/listening on (http:\/\/\S+)/, timeoutMs);
  if (started.kind === "matched" && started.match[1] !== undefined) return started.match[1];
  throw new Error(`serve did not start (${started.kind}): ${server.output()}`);
}
