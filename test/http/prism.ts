/**
 * Runs Stoplight Prism as a child process (`prism proxy` or `prism mock`) on
 * a free port and waits until it answers.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { resolve } from "node:path";

export const PRISM_BIN = resolve("node_modules/.bin/prism");
export const PUBLIC_SPEC = resolve("spec/openapi.yaml");

export function freePort(): Promise<number> {
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

export interface PrismProcess {
  readonly url: string;
  readonly output: () => string;
  stop(): Promise<void>;
}

export function prismAvailable(): boolean {
  return existsSync(PRISM_BIN) && existsSync(PUBLIC_SPEC);
}

/** Starts `prism <args> -p <port>` and resolves once any HTTP answer comes back. */
export async function startPrism(args: readonly string[], timeoutMs = 60_000): Promise<PrismProcess> {
  const port = await freePort();
  const child: ChildProcess = spawn(PRISM_BIN, [...args, "-p", String(port), "-h", "127.0.0.1"], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, FORCE_COLOR: "0" },
  });
  let log = "";
  child.stdout?.on("data", (chunk) => {
    log += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    log += chunk;
  });
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prism exited early:\n${log}`);
    try {
      await fetch(`${url}/__ready`, { signal: AbortSignal.timeout(1_000) });
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill("SIGKILL");
        throw new Error(`prism did not answer within ${timeoutMs} ms:\n${log}`);
      }
      await new Promise((done) => setTimeout(done, 200));
    }
  }
  return {
    url,
    output: () => log,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
