/**
 * Independent validation: `prism proxy <spec> <target> --errors` between the
 * harness and the target. Prism checks every request and response against
 * the OpenAPI document; with --errors a response that breaks it becomes a 422
 * carrying the violations (also in the `sl-violations` header), which the
 * harness reports as `response_schema_conformance` failures.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { HarnessError } from "./checker.ts";

export interface PrismProxy {
  readonly url: string;
  close(): Promise<void>;
}

export interface PrismOptions {
  /** The upstream (the target's base URL). */
  readonly upstream: string;
  /** Default: this package's `spec/openapi.yaml`. */
  readonly specFile?: string;
  /** Default: `node_modules/.bin/prism` under this package, else under `cwd`. */
  readonly command?: string;
  /** Where to look for Prism when the package's own copy is not there. Default: the working directory. */
  readonly cwd?: string;
  /** How long Prism may take to start. Default 60 s. */
  readonly startTimeoutMs?: number;
}

/** The package's root (the spec and, in a checkout, Prism live there). */
const PACKAGE_ROOT = fileURLToPath(new URL("../../", import.meta.url));

export async function startPrism(options: PrismOptions): Promise<PrismProxy> {
  const cwd = options.cwd ?? process.cwd();
  const command =
    options.command ??
    [resolve(PACKAGE_ROOT, "node_modules/.bin/prism"), resolve(cwd, "node_modules/.bin/prism")].find((candidate) =>
      existsSync(candidate),
    ) ??
    "prism";
  const specFile = options.specFile ?? resolve(PACKAGE_ROOT, "spec/openapi.yaml");
  if (!existsSync(command)) throw new HarnessError(`--validate-with-prism: node_modules/.bin/prism not found`);
  if (!existsSync(specFile)) throw new HarnessError(`--validate-with-prism: ${specFile} not found`);
  const port = await freePort();
  const child = spawn(
    command,
    ["proxy", specFile, options.upstream, "--errors", "-p", String(port), "-h", "127.0.0.1"],
    { cwd: PACKAGE_ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  const url = `http://127.0.0.1:${port}`;
  await new Promise<void>((resolveStart, rejectStart) => {
    const timer = setTimeout(() => {
      child.kill();
      rejectStart(
        new HarnessError(`Prism did not start within ${options.startTimeoutMs ?? 60_000} ms:\n${output.slice(-2000)}`),
      );
    }, options.startTimeoutMs ?? 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (/listening on/i.test(output)) {
        clearTimeout(timer);
        resolveStart();
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      rejectStart(new HarnessError(`Prism exited with ${code} before listening:\n${output.slice(-2000)}`));
    });
  });
  // Keep draining its log so a full pipe never blocks it.
  child.stdout?.resume();
  child.stderr?.resume();
  return { url, close: () => stop(child) };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolveStop) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolveStop();
    });
    child.kill("SIGTERM");
  });
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, rejectPort) => {
    const server = createServer();
    server.once("error", rejectPort);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}
