/**
 * How a long-running command (`serve`, `listen`, `listen --forward-to`)
 * meets the system around it: why it could not take its port, said with
 * what to do next, and how it is stopped: the first SIGINT or SIGTERM asks
 * it to finish, named so the command can say which; a second one, while it
 * finishes, exits at once.
 */
import { constants } from "node:os";

const STOP_SIGNALS = ["SIGINT", "SIGTERM"] as const satisfies readonly NodeJS.Signals[];

/** The shell's convention for a process ended by `signal`: 128 + its number (SIGINT 130, SIGTERM 143). */
function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + constants.signals[signal];
}

/** Calls `onSignal` on every SIGINT and SIGTERM; returns the function that stops listening. */
function onEveryStopSignal(onSignal: (signal: NodeJS.Signals) => void): () => void {
  for (const name of STOP_SIGNALS) process.on(name, onSignal);
  return () => {
    for (const name of STOP_SIGNALS) process.off(name, onSignal);
  };
}

/** The first SIGINT or SIGTERM; a later one meets Node's default action (the process ends at once). */
export function untilStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = onEveryStopSignal((signal) => {
      stop();
      resolve(signal);
    });
  });
}

export interface StopSignals {
  /** The first SIGINT or SIGTERM: the command then finishes its work. */
  readonly first: Promise<NodeJS.Signals>;
  /** Stops listening, once the command has finished. */
  dispose(): void;
}

/**
 * The first SIGINT or SIGTERM resolves `first`; any later one says `message`
 * and exits at once with that signal's exit code. One listener stays in place
 * throughout: removing it, even for a moment, would leave a second signal to
 * Node's default action, which kills the process without a word.
 */
export function watchStopSignals(say: (message: string) => void): StopSignals {
  let received = false;
  let resolveFirst: (signal: NodeJS.Signals) => void = () => undefined;
  const first = new Promise<NodeJS.Signals>((resolve) => {
    resolveFirst = resolve;
  });
  const dispose = onEveryStopSignal((signal) => {
    if (!received) {
      received = true;
      resolveFirst(signal);
      return;
    }
    say(`${signal} again: exiting at once`);
    process.exit(signalExitCode(signal));
  });
  return { first, dispose };
}

/**
 * Why a command could not take its port, with what to do next: the usual
 * cause is a simulator or listener still running from an earlier try.
 */
export function cannotListen(host: string, port: number, error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const where = `cannot listen on ${host}:${port}`;
  if (code === "EADDRINUSE") {
    return `${where}: port ${port} is in use (another simulator or listener still running?); choose another with --port N, or --port 0 for any free port`;
  }
  if (code === "EACCES") return `${where}: this user may not bind port ${port}; choose one above 1023, or --port 0`;
  if (code === "EADDRNOTAVAIL") return `${where}: no network interface has the address ${host}; try --host 127.0.0.1`;
  return `${where}: ${error instanceof Error ? error.message : String(error)}`;
}
