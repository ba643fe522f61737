/** What a newcomer reads first says what the simulator does. */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { expect, test } from "vitest";
import { section } from "../support/markdown.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const read = (file: string): string => readFileSync(resolve(ROOT, file), "utf8");

test("the simulator guide, which documents --state-file, never says state is lost on exit", () => {
  const guide = read("docs/simulator.md");
  expect(section(guide, "keeping-state-across-restarts")).toContain("--state-file");
  expect(guide).not.toMatch(/lost on exit/i);
});
