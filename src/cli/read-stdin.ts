/**
 * All of stdin, read synchronously. A pipe whose writer has not written yet
 * can be non-blocking, and then `readFileSync(0)` fails with EAGAIN instead
 * of waiting: `airtime-harness secret | airtime-harness listen --secret -`
 * starts both processes at once, so the reader must wait for the writer.
 */
import { readSync } from "node:fs";

const RETRY_MS = 10;

export function readStdinSync(): string {
  const chunks: Buffer[] = [];
  const buffer = Buffer.alloc(64 * 1024);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    let read: number;
    try {
      read = readSync(0, buffer, 0, buffer.length, null);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
      Atomics.wait(pause, 0, 0, RETRY_MS);
      continue;
    }
    if (read === 0) return Buffer.concat(chunks).toString("utf8");
    chunks.push(Buffer.from(buffer.subarray(0, read)));
  }
}
