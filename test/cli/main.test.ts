/**
 * The `airtime-harness` command as a user runs it: a version, help for every
 * command in every spelling, exit statuses as documented, and a quiet stop
 * when the reader of its output goes away.
 */
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import { describe, expect, test } from "vitest";
import { CLI_BIN as BIN, runCli } from "../support/processes.ts";

const COMMANDS = ["serve", "listen", "trigger", "scenarios", "contract", "secret", "init", "replay"] as const;

async function run(args: readonly string[]): Promise<{ code: number | null; output: string }> {
  const cli = runCli(args);
  const code = await cli.exited;
  return { code, output: cli.output() };
}

test("--version and -v print the version of package.json", async () => {
  const { version } = JSON.parse(await readFile("package.json", "utf8")) as { version: string };
  for (const flag of ["--version", "-v"]) expect(await run([flag])).toEqual({ code: 0, output: `${version}\n` });
});

test("the version is found from the sources and from a compiled dist/ alike", async () => {
  const { version } = JSON.parse(await readFile("package.json", "utf8")) as { version: string };
  // npm ci builds dist/ (the prepare script); the compiled bin finds package.json from there.
  const { stdout } = await promisify(execFile)(process.execPath, ["dist/cli.js", "--version"]);
  expect(stdout).toBe(`${version}\n`);
});

describe.each(COMMANDS)("%s", (command) => {
  test.each([["--help"], ["-h"]])("%s prints its usage and exits 0", async (flag) => {
    const { code, output } = await run([command, flag]);
    expect(code, output).toBe(0);
    expect(output).toContain(`usage: airtime-harness ${command}`);
  });
});

test("help <command> prints that command's usage, not the top-level one", async () => {
  const { code, output } = await run(["help", "serve"]);
  expect(code).toBe(0);
  expect(output).toContain("usage: airtime-harness serve");
  expect(output).not.toContain("commands:");
});

test("scenarios validate --help asks for help, not for a file named --help", async () => {
  const { code, output } = await run(["scenarios", "validate", "--help"]);
  expect(code).toBe(0);
  expect(output).toContain("usage: airtime-harness scenarios");
});

test.each([[[]], [["frobnicate"]], [["help", "frobnicate"]], [["serve", "--no-such-flag"]]])(
  "a usage error (%j) exits 2",
  async (args) => {
    expect((await run(args)).code).toBe(2);
  },
);

test("a port already taken is a target problem: serve exits 2", async () => {
  const first = runCli(["serve", "--port", "0"]);
  try {
    const started = await first.waitFor(/listening on http:\/\/127\.0\.0\.1:(\d+)/, 30_000);
    if (started.kind !== "matched") throw new Error(first.output());
    const second = await run(["serve", "--port", started.match[1] as string]);
    expect(second.code).toBe(2);
    expect(second.output).toContain("cannot listen");
  } finally {
    await first.stop();
  }
});

test("`scenarios accounts | true`: the reader is gone, the command stops quietly and successfully", async () => {
  // `true` exits without reading, so every write of the CLI meets a closed pipe; its stderr is what we read.
  const script = `node ${JSON.stringify(BIN)} scenarios accounts | true; echo "status \${PIPESTATUS[0]}" >&2`;
  const { stderr } = await promisify(execFile)("bash", ["-c", script]);
  expect(stderr).toBe("status 0\n");
});
