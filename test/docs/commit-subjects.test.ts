/**
 * Commit subjects are at most 72 columns from the commit that set the rule on,
 * so `git log --oneline` reads as a list. Earlier history is left as it was.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { expect, test } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const HOOK = join(ROOT, ".githooks/commit-msg");
/** The commit time of the last commit made before the rule. */
const RULE_SINCE = "2026-11-26T09:55:01Z";
const MAX_SUBJECT = 72;

function subjectsSinceRule(): string[] {
  const out = execFileSync("git", ["log", `--since=${RULE_SINCE}`, "--format=%s"], { cwd: ROOT, encoding: "utf8" });
  return out.split("\n").filter((line) => line !== "");
}

test(`every commit subject since the rule is at most ${MAX_SUBJECT} characters`, () => {
  const tooLong = subjectsSinceRule().filter((subject) => [...subject].length > MAX_SUBJECT);
  expect(tooLong).toEqual([]);
});

async function runHook(message: string): Promise<number | null> {
  const dir = await mkdtemp(join(tmpdir(), "commit-msg-"));
  try {
    const file = join(dir, "COMMIT_EDITMSG");
    await writeFile(file, message);
    return spawnSync("sh", [HOOK, file]).status;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test("the commit-msg hook refuses a long subject and accepts a short one with a long body", async () => {
  expect(await runHook(`${"x".repeat(MAX_SUBJECT + 1)}\n`)).toBe(1);
  expect(await runHook(`# a comment git adds\nShort subject\n\n${"why ".repeat(60)}\n`)).toBe(0);
});
