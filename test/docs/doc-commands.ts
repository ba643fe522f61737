/**
 * The shell commands the README and the guides show, and a runner for them:
 * each through bash, in its own process group, with the fixed ports the docs
 * use (4010, 4020 and localhost:3000) swapped for free ones. The README runs
 * every command of its `sh` blocks; a guide marks a block to run with the
 * info string `sh runnable` (GitHub still highlights it as `sh`).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { codeBlocks } from "../support/markdown.ts";

const ROOT = resolve(import.meta.dirname, "../..");
export const README = readFileSync(join(ROOT, "README.md"), "utf8");

/** Commands that install packages or run this suite: the tests install the packed tarball instead. */
export const NOT_RUN = ["npm ci", "npm test", "npm install --save-dev airtime-harness"];
/** Commands that serve until stopped: each is started, seen listening, and stopped. */
export const LONG_RUNNING = /^(npm start|npx airtime-harness (serve|listen))\b(?!.*--help)/;

/** Every command of the blocks whose info string `pick` accepts: continuations joined, comments (and comment lines: sample output) dropped, `&&` split. */
function shellCommands(markdown: string, pick: (info: string) => boolean): string[] {
  return codeBlocks(markdown)
    .filter((block) => pick(block.language))
    .flatMap((block) => block.code.replaceAll("\\\n", " ").split("\n"))
    .map((line) =>
      line
        .replace(/\s+#\s.*$/, "")
        .replace(/\s+/g, " ")
        .trim(),
    )
    .filter((line) => line !== "" && !line.startsWith("#"))
    .flatMap((line) => line.split(" && "));
}

export function readmeCommands(): string[] {
  return shellCommands(README, (info) => info === "sh");
}

/** The commands of a guide's `sh runnable` blocks. */
export function runnableCommands(markdown: string): string[] {
  return shellCommands(markdown, (info) => info === "sh runnable");
}

/** The commands of every guide's `sh runnable` blocks, each with the guide it is in. */
export function guideCommands(): Array<{ guide: string; command: string }> {
  return readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .flatMap((name) =>
      runnableCommands(readFileSync(join(ROOT, "docs", name), "utf8")).map((command) => ({
        guide: `docs/${name}`,
        command,
      })),
    );
}

export interface Shell {
  readonly child: ChildProcess;
  readonly output: () => string;
  readonly exited: Promise<number | null>;
}

export interface DocShells {
  /** Runs `command` through bash in `cwd`, the fixed ports swapped for this run's. */
  run(command: string, cwd: string): Shell;
  /** The URL a serving command prints once it listens. */
  listening(shell: Shell): Promise<string>;
  stop(shell: Shell): Promise<void>;
  stopAll(): Promise<void>;
}

/** A runner whose PATH starts with `pathPrefix` (when given) and whose fixed ports are `ports`' values. */
export function createDocShells(ports: ReadonlyMap<string, string>, pathPrefix?: string): DocShells {
  const shells: Shell[] = [];
  const PATH = pathPrefix === undefined ? (process.env.PATH ?? "") : `${pathPrefix}:${process.env.PATH ?? ""}`;

  async function stop(shell: Shell): Promise<void> {
    const { pid, exitCode } = shell.child;
    if (exitCode !== null || pid === undefined) return;
    try {
      process.kill(-pid, "SIGTERM");
    } catch {
      // The group has already gone.
    }
    await shell.exited;
  }

  return {
    run(command, cwd) {
      let text = command;
      for (const [fixed, free] of ports) text = text.replaceAll(fixed, free);
      // Its own process group, so stopping it stops the whole pipeline.
      const child = spawn("bash", ["-c", text], {
        cwd,
        detached: true,
        env: { ...process.env, PATH, AIRTIME_SIM_PORT: ports.get("4010") ?? "" },
      });
      let output = "";
      child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
      child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
      const shell = {
        child,
        output: () => output,
        exited: new Promise<number | null>((done) => child.on("close", done)),
      };
      shells.push(shell);
      return shell;
    },
    async listening(shell) {
      for (let waited = 0; waited < 60_000; waited += 50) {
        const url = /listening on (http:\/\/\S+)/.exec(shell.output())?.[1];
        if (url !== undefined) return url;
        if (shell.child.exitCode !== null) break;
        // Polling a child's output: there is no clock to advance here.
        await new Promise((done) => setTimeout(done, 50));
      }
      throw new Error(`not listening: ${shell.output()}`);
    },
    stop,
    async stopAll() {
      for (const shell of shells) await stop(shell);
    },
  };
}
