/**
 * How a long-running command (`serve`, `listen`, `listen --forward-to`) is
 * stopped: the first SIGINT or SIGTERM asks it to finish, named so the
 * command can say which; a second one, while it finishes, exits at once.
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
