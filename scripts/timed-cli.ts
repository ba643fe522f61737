/**
 * The CLI in a child process, as a user or a CI pipeline starts it, timed
 * from start to exit with everything it printed (stdout and stderr).
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));

export interface TimedCli {
  readonly wallMs: number;
  readonly exitCode: number | null;
  readonly output: string;
}

/** Runs `airtime-harness ARGS` from the source tree; with `script`, ARGS start with a script of its own to run instead. */
export async function timeCli(args: readonly string[], options: { script?: boolean } = {}): Promise<TimedCli> {
  const started = Date.now();
  const entry = options.script === true ? [] : [join(ROOT, "src/cli/main.ts")];
  const child = spawn(process.execPath, ["--import", "tsx", ...entry, ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exitCode = await new Promise<number | null>((resolve) => child.on("close", resolve));
  return { wallMs: Date.now() - started, exitCode, output };
}
