/**
 * The progress line during a run: rewritten in place on a terminal, with an
 * estimate of the time left in the current property; one line every few
 * seconds otherwise (CI logs, where an estimate only adds noise).
 */
import type { ProgressEvent } from "../contract-options.ts";

export interface ProgressLine {
  update(event: ProgressEvent): void;
  done(): void;
}

/** The part of a stream the line writes to; a terminal says so with `isTTY`. */
export interface ProgressStream {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

export interface ProgressLineOptions {
  /** How often a line is written when the stream is not a terminal. */
  readonly intervalMs?: number;
  /** Milliseconds since any fixed origin; injected so the estimate can be tested without waiting. */
  readonly now?: () => number;
}

/**
 * @example
 * const progress = createProgressLine(process.stderr);
 * await runContract({ onProgress: (event) => progress.update(event) });
 * progress.done();
 */
export function createProgressLine(stream: ProgressStream, options: ProgressLineOptions = {}): ProgressLine {
  const { intervalMs = 5000, now = Date.now } = options;
  const tty = stream.isTTY === true;
  const eta = createEtaEstimate();
  let lastWrite = Number.NEGATIVE_INFINITY;
  let dirty = false;
  return {
    update(event) {
      const at = now();
      const left = eta.observe(event, at);
      if (tty) {
        if (at - lastWrite < 100) return;
        const suffix = left === undefined ? "" : `, ${formatTimeLeft(left)} left`;
        stream.write(`\r\u001b[2K${describe(event)}${suffix}`);
        dirty = true;
      } else {
        if (at - lastWrite < intervalMs) return;
        stream.write(`${describe(event)}\n`);
      }
      lastWrite = at;
    },
    done() {
      if (tty && dirty) stream.write("\r\u001b[2K");
    },
  };
}

function describe(event: ProgressEvent): string {
  return `contract: ${event.property} run ${event.run}${event.phase === "search" ? `/${event.runs}` : ` (${event.phase})`}`;
}

/**
 * Time left in the current search: the mean time per run so far times the
 * runs still to go. A new property, or a counter that went back (a search
 * started again), restarts the estimate; shrinking has no known end, so none.
 */
function createEtaEstimate(): { observe(event: ProgressEvent, at: number): number | undefined } {
  let property: string | undefined;
  let lastRun = 0;
  let startedAt = 0;
  return {
    observe(event, at) {
      if (event.phase !== "search") return undefined;
      if (event.property !== property || event.run < lastRun) {
        property = event.property;
        startedAt = at;
      }
      lastRun = event.run;
      // The first run's event marks the start; only finished runs give a rate.
      const finished = event.run - 1;
      if (finished < 1 || at <= startedAt) return undefined;
      return ((at - startedAt) / finished) * (event.runs - finished);
    },
  };
}

/** "12 s" under a minute, "3 min" above: a coarse estimate reads better rounded. */
function formatTimeLeft(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.ceil(seconds / 60)} min`;
}
