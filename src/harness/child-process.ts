/**
 * Child-process plumbing shared by the Prism proxy, the tests and the bench:
 * a free port, a child whose output is collected, waiting for a line it
 * prints, and stopping it.
 */
import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";
import { createServer } from "node:net";

/**
 * Ports handed out below every common ephemeral range (Linux 32768–60999,
 * BSD and Windows 49152–65535). A port the OS picks for `listen(0)` comes
 * from that range, and between its release and its reuse here a busy
 * machine's outgoing connections can take it as their source port: the
 * later `listen` then fails with EADDRINUSE. Below the range only another
 * explicit bind can take it.
 */
const QUIET_PORTS = { min: 20_000, max: 32_000 } as const;
const PROBES = 20;
/**
 * Ports this process handed out and may not have bound yet: a port is free
 * from its probe until its caller binds it, and two callers at once (runs
 * started side by side) must not both be given it.
 */
const handedOut = new Set<number>();
const HANDED_OUT_KEPT = 2_000;

/** A port nothing listens on right now (probed, then released), and not handed out lately by this process. */
export async function freePort(host = "127.0.0.1"): Promise<number> {
  for (let probe = 0; probe < PROBES; probe += 1) {
    const port = QUIET_PORTS.min + Math.floor(Math.random() * (QUIET_PORTS.max - QUIET_PORTS.min));
    if (handedOut.has(port)) continue;
    // Claimed before the probe: a call running alongside must not probe it too.
    handOut(port);
    if ((await tryListen(host, port)) !== undefined) return port;
    handedOut.delete(port);
  }
  // Every probe taken: let the OS choose, from its ephemeral range.
  const port = await tryListen(host, 0);
  if (port === undefined) throw new Error(`no free port on ${host}`);
  return port;
}

function handOut(port: number): void {
  handedOut.add(port);
  // Oldest first: a Set iterates in insertion order.
  if (handedOut.size > HANDED_OUT_KEPT) handedOut.delete(handedOut.values().next().value as number);
}

/** The port listened on and released, or undefined when it is taken. */
function tryListen(host: string, port: number): Promise<number | undefined> {
  return new Promise((resolvePort, rejectPort) => {
    const server = createServer();
    server.once("error", (error: NodeJS.ErrnoException) =>
      error.code === "EADDRINUSE" || error.code === "EACCES" ? resolvePort(undefined) : rejectPort(error),
    );
    server.listen(port, host, () => {
      const address = server.address();
      const bound = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolvePort(bound));
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
