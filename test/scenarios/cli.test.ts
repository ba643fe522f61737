/** `airtime-harness scenarios validate | list | accounts`. */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, expect, test, vi } from "vitest";
import { scenarios } from "../../src/cli/scenarios.ts";
import { listLibraryFiles } from "../../src/scenarios/library.ts";
import { MAGIC_ACCOUNTS } from "../../src/scenarios/magic-accounts.ts";

let dir = "";
let good = "";
let bad = "";

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "scenario-cli-"));
  good = join(dir, "good.yaml");
  bad = join(dir, "bad.yaml");
  await writeFile(good, "name: good\ndescription: fine\nrules:\n  - {name: a, effects: {stuckPending: true}}\n");
  await writeFile(
    bad,
    "name: bad\ndescription: broken twice\nrules:\n  - name: a\n    match: {probability: 2}\n    effects: {httpError: {status: 404, when: before_commit}}\n",
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  vi.restoreAllMocks();
});

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, "log").mockImplementation((...args) => void out.push(args.join(" ")));
  vi.spyOn(console, "error").mockImplementation((...args) => void err.push(args.join(" ")));
  return { out, err };
}

test("validate exits 0 and names each valid file", async () => {
  const { out } = capture();
  expect(await scenarios(["validate", good, ...(await listLibraryFiles())])).toBe(0);
  expect(out[0]).toBe(`ok ${good}: good (1 rule)`);
});

test("validate exits 1 and prints every problem as file: path: message", async () => {
  const { err } = capture();
  expect(await scenarios(["validate", good, bad])).toBe(1);
  expect(err).toContain(`${bad}: rules[0].match.probability: Too big: expected number to be <=1 (line 5)`);
  expect(err).toContain(`${bad}: rules[0].effects.httpError.status: must be 429, 500, 502 or 503 (line 6)`);
});

test("validate without files is a usage error", async () => {
  capture();
  expect(await scenarios(["validate"])).toBe(2);
});

test("list shows every shipped scenario with its description", async () => {
  const { out } = capture();
  expect(await scenarios(["list"])).toBe(0);
  expect(out).toHaveLength((await listLibraryFiles()).length);
  expect(out.find((line) => line.startsWith("flaky-gateway"))).toContain("5xx");
});

test("accounts prints one line per magic account", async () => {
  const { out } = capture();
  expect(await scenarios(["accounts"])).toBe(0);
  expect(out).toHaveLength(MAGIC_ACCOUNTS.length);
  expect(out[1]).toContain("+254700000001  0700000001");
});

test("the installed command exits 1 on a bad file", async () => {
  const run = promisify(execFile);
  const failure = await run(process.execPath, ["bin/airtime-harness.js", "scenarios", "validate", bad]).catch(
    (error: { code: number; stderr: string }) => error,
  );
  expect(failure).toMatchObject({ code: 1 });
  expect((failure as { stderr: string }).stderr).toContain("rules[0].effects.httpError.status");
});
