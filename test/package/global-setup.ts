/**
 * Packs the package once per test run (`npm pack`, which builds it first)
 * and hands the tarball's path to the package tests. With
 * AIRTIME_HARNESS_TARBALL set (CI packs once for every check), that tarball
 * is used instead.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    tarball: string;
  }
}

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, "../..");

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env.AIRTIME_HARNESS_TARBALL;
  if (given !== undefined && given !== "") {
    project.provide("tarball", resolve(given));
    return async () => {};
  }
  const folder = await mkdtemp(join(tmpdir(), "airtime-harness-pack-"));
  await run("npm", ["pack", "--silent", "--pack-destination", folder], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
  const [tarball] = (await readdir(folder)).filter((file) => file.endsWith(".tgz"));
  if (tarball === undefined) throw new Error(`npm pack left no tarball in ${folder}`);
  project.provide("tarball", join(folder, tarball));
  return () => rm(folder, { recursive: true, force: true });
}
