/**
 * `compare` shows its progress on stderr — one line per run sent and one
 * when only settling is left — and keeps stdout for the report. Only the
 * lines are checked, never how long anything took.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, expect, test, vi } from "vitest";
import { main } from "../../src/cli/main.ts";
import { createCompareProgress } from "../../src/compare/progress.ts";
import { useTempFolder } from "../support/temp-folder.ts";
import { CompareTargets, REFERENCE_SETTINGS, TARGET_TOKEN } from "../support/compare-targets.ts";

const targets = new CompareTargets();
afterEach(() => targets.close());
const folder = useTempFolder("compare-progress-");

test("the command writes its progress to stderr and the report to stdout", async () => {
  const target = await targets.simulator({ seed: 51 });
  const simConfig = join(folder(), "reference.json");
  await writeFile(simConfig, JSON.stringify(REFERENCE_SETTINGS));
  const written: string[] = [];
  const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
    written.push(String(chunk));
    return true;
  });
  const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
  try {
    const args = ["--target", target, "--token", TARGET_TOKEN, "--seed", "3", "--runs", "3", "--settle", "10s"];
    expect(await main(["compare", ...args, "--sim-config", simConfig])).toBe(0);
    const progress = written.join("");
    expect(progress).toMatch(/^compare: run 1\/3 sent \(\d+\.\ds\)$/m);
    expect(progress).toMatch(/^compare: run 3\/3 sent/m);
    expect(progress).toMatch(/^compare: every run sent; waiting for \d+ order\(s\) to become final/m);
    const report = log.mock.calls.flat().join("\n");
    expect(report).toContain("fidelity: overall");
    expect(report).not.toContain("run 1/3 sent");
  } finally {
    stderr.mockRestore();
    log.mockRestore();
  }
});

test("on a terminal the line is rewritten in place and cleared at the end", () => {
  const writes: string[] = [];
  const progress = createCompareProgress({ isTTY: true, write: (text: string) => writes.push(text) }, () => 0);
  progress.update({ phase: "sent", run: 1, runs: 2 });
  progress.update({ phase: "settling", orders: 4 });
  progress.done();
  expect(writes).toEqual([
    "\r\u001b[2Kcompare: run 1/2 sent (0.0s)",
    "\r\u001b[2Kcompare: every run sent; waiting for 4 order(s) to become final (0.0s)",
    "\r\u001b[2K",
  ]);
});
