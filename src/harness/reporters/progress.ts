/**
 * The progress line during a run: rewritten in place on a terminal, one line
 * every few seconds otherwise (CI logs).
 */
import type { ProgressEvent } from "../contract-options.ts";

export interface ProgressLine {
  update(event: ProgressEvent): void;
  done(): void;
}

export function createProgressLine(stream: NodeJS.WriteStream, intervalMs = 5000): ProgressLine {
  const tty = stream.isTTY === true;
  let lastWrite = 0;
  let dirty = false;
  return {
    update(event) {
      const now = Date.now();
      const text = `contract: ${event.property} run ${event.run}${event.phase === "search" ? `/${event.runs}` : ` (${event.phase})`}`;
      if (tty) {
        if (now - lastWrite < 100) return;
        stream.write(`\r\u001b[2K${text}`);
        dirty = true;
      } else {
        if (now - lastWrite < intervalMs) return;
        stream.write(`${text}\n`);
      }
      lastWrite = now;
    },
    done() {
      if (tty && dirty) stream.write("\r\u001b[2K");
    },
  };
}
