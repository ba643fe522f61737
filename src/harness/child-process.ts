/**
 * Child-process plumbing shared by the Prism proxy, the tests and the bench:
 * a free port, a child whose output is collected, waiting for a line it
 * prints, and stopping it.
 */
import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";
import { createServer } from "node:net";

/** A port nothing listens on right now (asked of the OS, then released). */
export function freePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolvePort, rejectPort) => {
    const server = createServer();
    server.once("error", rejectPort);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

export type OutputWait =
  | { readonly kind: "matched"; readonly match: RegExpExecArray }
  | { readonly kind: "exited"; readonly code: number | null }
  | { readonly kind: "timed_out" };

export interface RunningProcess {
  readonly child: ChildProcess;
  /** Everything it printed so far on the piped streams, stdout and stderr interleaved. */
  output(): string;
  /** Its exit code (null when a signal ended it). */
  readonly exited: Promise<number | null>;
  /** Waits until its output matches `pattern`, it exits, or `timeoutMs` passes. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<OutputWait>;
  /** SIGTERM, then SIGKILL if it is still running after `killAfterMs`; resolves once it has exited. */
  stop(killAfterMs?: number): Promise<void>;
}

/**
 * Spawns a child and collects what it prints. Collecting also drains the
 * pipes, so a chatty child never blocks on a full one.
 *
 * @example
 * const server = startProcess(process.execPath, ["bin/airtime-harness.js", "serve", "--port", "0"]);
 * const ready = await server.waitFor(/listening on (http:\/\/\S+)/, 30_000);
 * if (ready.kind === "matched") console.log(ready.match[1]);
 * await server.stop();
 */
export function startProcess(command: string, args: readonly string[], options: SpawnOptions = {}): RunningProcess {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], ...options });
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString("utf8");
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  // "close", not "exit": by then every byte it printed has been collected.
  const exited = new Promise<number | null>((resolveExit) => child.once("close", (code) => resolveExit(code)));
  return {
    child,
    output: () => output,
    exited,
    waitFor: (pattern, timeoutMs) => waitForOutput(child, () => output, pattern, timeoutMs),
    stop: (killAfterMs) => stopChild(child, killAfterMs),
  };
}

function waitForOutput(child: ChildProcess, output: () => string, pattern: RegExp, timeoutMs: number) {
  return new Promise<OutputWait>((resolveWait) => {
    const finish = (outcome: OutputWait) => {
      clearTimeout(timer);
      child.stdout?.off("data", check);
      child.stderr?.off("data", check);
      child.off("exit", onExit);
      resolveWait(outcome);
    };
    // Runs after the collecting listener (added first), so the new chunk is already in `output()`.
    const check = () => {
      const match = pattern.exec(output());
      if (match !== null) finish({ kind: "matched", match });
    };
    const onExit = (code: number | null) => finish({ kind: "exited", code });
    const timer = setTimeout(() => finish({ kind: "timed_out" }), timeoutMs);
    child.stdout?.on("data", check);
    child.stderr?.on("data", check);
    child.once("exit", onExit);
    if (child.exitCode !== null || child.signalCode !== null) onExit(child.exitCode);
    else check();
  });
}

function stopChild(child: ChildProcess, killAfterMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolveStop) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), killAfterMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolveStop();
    });
    child.kill("SIGTERM");
  });
}
