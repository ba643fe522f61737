/**
 * The progress line's estimate of the time left: on a terminal only, from
 * the injected clock (no waiting), restarted with each property.
 */
import { expect, test } from "vitest";
import type { ProgressEvent } from "../../src/harness/contract-options.ts";
import { createProgressLine } from "../../src/harness/reporters/progress.ts";

function fakeStream(isTTY: boolean): { isTTY: boolean; written: string[]; write(text: string): boolean } {
  const written: string[] = [];
  return { isTTY, written, write: (text) => written.push(text) > 0 };
}

function search(property: ProgressEvent["property"], run: number, runs: number): ProgressEvent {
  return { property, run, runs, phase: "search" };
}

test("on a terminal the line ends with the time left, from the mean time per finished run", () => {
  const stream = fakeStream(true);
  let now = 1_000_000;
  const line = createProgressLine(stream, { now: () => now });
  line.update(search("model", 1, 20));
  now += 2_000;
  line.update(search("model", 2, 20)); // one run took 2 s; 19 to go
  now += 2_000;
  line.update(search("model", 3, 20)); // two runs in 4 s; 18 to go
  expect(stream.written.map((text) => text.replace("\r\u001b[2K", ""))).toEqual([
    "contract: model run 1/20",
    "contract: model run 2/20, 38 s left",
    "contract: model run 3/20, 36 s left",
  ]);
});

test("minutes above a minute, and a new property restarts the estimate", () => {
  const stream = fakeStream(true);
  let now = 0;
  const line = createProgressLine(stream, { now: () => now });
  line.update(search("model", 1, 100));
  now += 10_000;
  line.update(search("model", 2, 100)); // 10 s a run, 99 to go: 990 s
  now += 500;
  line.update(search("auth", 1, 100));
  expect(stream.written.at(-2)).toContain("run 2/100, 17 min left");
  expect(stream.written.at(-1)).toMatch(/contract: auth run 1\/100$/);
});

test("no estimate while shrinking, and none at all when the stream is not a terminal", () => {
  const tty = fakeStream(true);
  let now = 0;
  const onTty = createProgressLine(tty, { now: () => now });
  onTty.update(search("auth", 1, 10));
  now += 1_000;
  onTty.update({ property: "auth", run: 10, runs: 10, phase: "shrink-or-retry" });
  expect(tty.written.at(-1)).toMatch(/contract: auth run 10 \(shrink-or-retry\)$/);

  const log = fakeStream(false);
  now = 0;
  const onLog = createProgressLine(log, { intervalMs: 1_000, now: () => now });
  for (let run = 1; run <= 5; run++) {
    onLog.update(search("auth", run, 5));
    now += 1_000;
  }
  expect(log.written).toEqual([1, 2, 3, 4, 5].map((run) => `contract: auth run ${run}/5\n`));
});
