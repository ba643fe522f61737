/**
 * A fresh project that installs the packed tarball, as a user's would, and
 * the Node versions its code is run on: this process's, and the current LTS
 * when AIRTIME_HARNESS_LTS_NODE names its binary (.ci/run installs it).
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { inject } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");

interface Manifest {
  readonly version: string;
  readonly devDependencies: Readonly<Record<string, string>>;
}
export const MANIFEST = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as Manifest;

export interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to its end; never throws for a non-zero exit. */
export function exec(
  command: string,
  args: readonly string[],
  options: { readonly cwd: string; readonly env?: NodeJS.ProcessEnv },
): Promise<Outcome> {
  return new Promise((resolveOutcome) => {
    execFile(
      command,
      args,
      { cwd: options.cwd, env: options.env ?? process.env, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
        resolveOutcome({ code, stdout, stderr: error !== null && stderr === "" ? error.message : stderr });
      },
    );
  });
}

export interface NodeRuntime {
  /** e.g. "Node 20.20.2". */
  readonly name: string;
  readonly node: string;
  /** The environment that puts this Node first on PATH (for `npx` and `#!/usr/bin/env node`). */
  readonly env: NodeJS.ProcessEnv;
}

function runtime(node: string, version: string): NodeRuntime {
  return {
    name: `Node ${version}`,
    node,
    env: { ...process.env, PATH: `${dirname(node)}${delimiter}${process.env.PATH}` },
  };
}

/** Path of the current LTS Node's binary, when this run has one. */
export const LTS_NODE = process.env.AIRTIME_HARNESS_LTS_NODE || undefined;

/** The Node versions every consumer runs on. */
export async function nodeRuntimes(): Promise<NodeRuntime[]> {
  const runtimes = [runtime(process.execPath, process.versions.node)];
  if (LTS_NODE !== undefined) {
    const { stdout } = await exec(LTS_NODE, ["--version"], { cwd: ROOT });
    runtimes.push(runtime(resolve(LTS_NODE), stdout.trim().replace(/^v/, "")));
  }
  return runtimes;
}

/** The project's own tsc, checking the project `tsconfig` names. */
export function runConsumerTsc(dir: string, tsconfig: string): Promise<Outcome> {
  return exec(process.execPath, [join(dir, "node_modules/typescript/bin/tsc"), "-p", tsconfig], { cwd: dir });
}

/** The project's own vitest (`vitest run`, verbose, no colours) on `runtime`. */
export function runConsumerVitest(dir: string, runtime: NodeRuntime): Promise<Outcome> {
  return exec(runtime.node, [join(dir, "node_modules/vitest/vitest.mjs"), "run", "--reporter=verbose"], {
    cwd: dir,
    env: { ...runtime.env, CI: "true", NO_COLOR: "1" },
  });
}

export interface Consumer {
  readonly dir: string;
  write(file: string, content: string): Promise<void>;
  remove(): Promise<void>;
}

/**
 * A new project in a temporary folder with the tarball (and `devDependencies`,
 * at the versions this repository uses) installed. npm's own cache is shared
 * by every install, so repeated runs are served from it.
 */
export async function createConsumer(
  name: string,
  devDependencies: readonly string[] = [],
  manifest: Record<string, unknown> = { type: "module" },
): Promise<Consumer> {
  const dir = await mkdtemp(join(tmpdir(), `airtime-harness-${name}-`));
  await writeFile(join(dir, "package.json"), JSON.stringify({ name, private: true, ...manifest }, null, 2));
  const pinned = devDependencies.map(
    (dependency) => `${dependency}@${MANIFEST.devDependencies[dependency] ?? "latest"}`,
  );
  const installed = await exec(
    "npm",
    ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", inject("tarball"), ...pinned],
    { cwd: dir },
  );
  if (installed.code !== 0) throw new Error(`npm install failed in ${dir}:\n${installed.stderr}`);
  return {
    dir,
    write: (file, content) => writeFile(join(dir, file), content),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
