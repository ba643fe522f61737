/**
 * Failures as code: `contract --emit-test DIR` against a broken deployment
 * (a `serve`-like simulator behind a proxy that answers 500 to a non-string
 * `name`) writes the shrunk counterexample as a vitest file. That file, run
 * by vitest in a child process, fails naming the same check against the
 * broken target and passes against a correct one; `replay FILE` exits 1 and 0
 * likewise, and 2 for a file it cannot use.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, afterEach, beforeAll, expect, test, vi } from "vitest";
import { contract } from "../../src/cli/contract.ts";
import { replay } from "../../src/cli/replay.ts";
import { type BlackBoxTarget, startBlackBoxTarget } from "./black-box-targets.ts";

const CHECK = "never_server_error";
const REPO = resolve(import.meta.dirname, "../..");
let broken: BlackBoxTarget;
let correct: BlackBoxTarget;
let dir: string;
let emitted: string;

/** Console output of an in-process command, and its exit code. */
async function captured(run: () => Promise<number>): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const keep = (...parts: unknown[]): void => void lines.push(parts.join(" "));
  vi.spyOn(console, "error").mockImplementation(keep);
  vi.spyOn(console, "log").mockImplementation(keep);
  try {
    return { code: await run(), out: lines.join("\n") };
  } finally {
    vi.restoreAllMocks();
  }
}

function envFor(target: BlackBoxTarget): Record<string, string> {
  return { AIRTIME_TARGET: target.options.target as string, AIRTIME_TOKEN: target.options.token as string };
}

/** The emitted file under vitest in a child process, `airtime-harness/testing` resolved to this checkout. */
function vitestChild(target: BlackBoxTarget): Promise<{ code: number; out: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [
        join(REPO, "node_modules/vitest/vitest.mjs"),
        "run",
        "--root",
        dir,
        "--config",
        join(dir, "vitest.config.mjs"),
        emitted,
      ],
      { cwd: dir, env: { ...process.env, ...envFor(target), NO_COLOR: "1", CI: "true" }, timeout: 300_000 },
      (error, stdout, stderr) => done({ code: error === null ? 0 : Number(error.code ?? 1), out: stdout + stderr }),
    );
  });
}

beforeAll(async () => {
  [broken, correct] = await Promise.all([
    startBlackBoxTarget("crash_on_non_string_name", 1),
    startBlackBoxTarget("none", 1),
  ]);
  dir = await mkdtemp(join(tmpdir(), "emit-test-"));
  await symlink(join(REPO, "node_modules"), join(dir, "node_modules"));
  const testing = join(REPO, "src/testing/index.ts");
  await writeFile(
    join(dir, "vitest.config.mjs"),
    `export default { resolve: { alias: { "airtime-harness/testing": ${JSON.stringify(testing)} } } };\n`,
  );
  const { code, out } = await captured(() =>
    contract([
      ...["--target", broken.options.target as string, "--token", broken.options.token as string],
      ...["--property", "negative-input", "--seed", "1", "--runs", "30", "--quiet"],
      ...["--emit-test", join(dir, "failures")],
    ]),
  );
  expect(code, out).toBe(1);
  emitted = join(dir, "failures", `${CHECK}.test.ts`);
}, 300_000);

afterAll(async () => {
  await Promise.all([broken.close(), correct.close()]);
  await rm(dir, { recursive: true, force: true });
});

afterEach(() => {
  vi.unstubAllEnvs();
});

test("the emitted file imports only public entries and holds no token", async () => {
  const text = await readFile(emitted, "utf8");
  const imports = [...text.matchAll(/^import .* from "([^"]+)";$/gm)].map((match) => match[1]);
  expect(imports).toEqual(["vitest", "airtime-harness/testing"]);
  expect(text).toContain(`"check": "${CHECK}"`);
  expect(text).not.toContain(broken.options.token as string);
});

test("under vitest, the emitted file fails naming the check against the broken target", async () => {
  const { code, out } = await vitestChild(broken);
  expect(code, out).toBe(1);
  expect(out).toContain(`${CHECK} failed again`);
  expect(out).toMatch(/Tests +1 failed \(1\)/);
}, 300_000);

test("under vitest, the emitted file passes against a correct target", async () => {
  const { code, out } = await vitestChild(correct);
  expect(code, out).toBe(0);
  expect(out).toMatch(/Tests +1 passed \(1\)/);
}, 300_000);

test("replay FILE exits 1 naming the check against the broken target, 0 against a correct one", async () => {
  for (const [name, value] of Object.entries(envFor(broken))) vi.stubEnv(name, value);
  const failing = await captured(() => replay([emitted]));
  expect(failing.code, failing.out).toBe(1);
  expect(failing.out).toContain(`${CHECK} failed again`);
  for (const [name, value] of Object.entries(envFor(correct))) vi.stubEnv(name, value);
  const holding = await captured(() => replay([emitted]));
  expect(holding, holding.out).toEqual({ code: 0, out: `${CHECK} holds` });
}, 300_000);

test("replay exits 2 without a file, for a missing file, and for a file that holds no failure", async () => {
  expect((await captured(() => replay([]))).code).toBe(2);
  const missing = await captured(() => replay([join(dir, "nowhere.test.ts")]));
  expect(missing.code).toBe(2);
  expect(missing.out).toContain("ENOENT");
  const plain = join(dir, "plain.test.ts");
  await writeFile(plain, 'import { test } from "vitest";\ntest("nothing", () => {});\n');
  const noFailure = await captured(() => replay([plain]));
  expect(noFailure.code).toBe(2);
  expect(noFailure.out).toContain("contract --emit-test");
});
