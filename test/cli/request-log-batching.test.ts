/** The request log's batching in front of its asynchronous destination: fewer writes, no line lost. */
import { afterEach, expect, test, vi } from "vitest";
import { createBatchingWriter, type LogDestination } from "../../src/cli/request-log.ts";

function recordingDestination(): LogDestination & { writes: string[]; flushes: number } {
  const destination = {
    writes: [] as string[],
    flushes: 0,
    write(text: string) {
      destination.writes.push(text);
      return true;
    },
    flushSync() {
      destination.flushes++;
    },
  };
  return destination;
}

afterEach(() => {
  vi.useRealTimers();
});

test("the lines written close together go out as one write, in order, once the batch's time is up", () => {
  vi.useFakeTimers();
  const destination = recordingDestination();
  const log = createBatchingWriter(destination);
  for (let i = 0; i < 100; i++) log.write(`line ${i}\n`);
  expect(destination.writes).toEqual([]);
  vi.runAllTimers();
  expect(destination.writes).toEqual([Array.from({ length: 100 }, (_, i) => `line ${i}\n`).join("")]);
  log.write("later\n");
  vi.runAllTimers();
  expect(destination.writes.at(-1)).toBe("later\n");
  expect(destination.writes).toHaveLength(2);
});

test("flushSync hands over what is pending at once, and a large batch goes without waiting", () => {
  vi.useFakeTimers();
  const destination = recordingDestination();
  const log = createBatchingWriter(destination);
  log.write("pending\n");
  log.flushSync();
  expect(destination.writes).toEqual(["pending\n"]);
  expect(destination.flushes).toBe(1);
  vi.runAllTimers();
  expect(destination.writes).toHaveLength(1);

  const long = `${"x".repeat(20_000)}\n`;
  log.write(long);
  expect(destination.writes.at(-1)).toBe(long);
});
