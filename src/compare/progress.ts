/**
 * The progress of `compare` on stderr, so stdout keeps only the report: on
 * a terminal one line rewritten in place, elsewhere (CI logs) one line per
 * run sent and one when only settling is left.
 */
import type { ProgressStream } from "../harness/reporters/progress.ts";
import type { ObserveProgress } from "./observe.ts";

export interface CompareProgress {
  update(event: ObserveProgress): void;
  done(): void;
}

function describe(event: ObserveProgress, seconds: string): string {
  return event.phase === "sent"
    ? `compare: run ${event.run}/${event.runs} sent (${seconds})`
    : `compare: every run sent; waiting for ${event.orders} order(s) to become final (${seconds})`;
}

/**
 * @example
 * const progress = createCompareProgress(process.stderr);
 * await runCompare({ ...input, onProgress: (event) => progress.update(event) });
 * progress.done();
 */
export function createCompareProgress(stream: ProgressStream, now: () => number = Date.now): CompareProgress {
  const started = now();
  const tty = stream.isTTY === true;
  let dirty = false;
  return {
    update(event) {
      const line = describe(event, `${((now() - started) / 1000).toFixed(1)}s`);
      if (tty) {
        stream.write(`\r\u001b[2K${line}`);
        dirty = true;
      } else stream.write(`${line}\n`);
    },
    done() {
      if (dirty) stream.write("\r\u001b[2K");
      dirty = false;
    },
  };
}
