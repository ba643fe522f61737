/**
 * Builds the image once per test run for every container test: the local
 * base first when podman's store lacks it (test/container/build-base.sh,
 * kept across runs), then the Containerfile on it, timed and measured. Then
 * serves podman's Docker-compatible API on a socket of its own, for
 * Testcontainers. Hands the image's tag and the socket to the tests. The
 * build's `npm ci` runs on Node 20, so an EBADENGINE warning there fails it.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import type { TestProject } from "vitest/node";
import { podman, podmanEnv, podmanResult } from "./podman.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** The image built from the Containerfile. */
    image: string;
    /** DOCKER_HOST for podman's Docker-compatible API. */
    dockerHost: string;
  }
}

const ROOT = resolve(import.meta.dirname, "../..");
const IMAGE = "localhost/airtime-harness:test";
const BASE = `localhost/airtime-harness-base:bookworm-node${process.version}`;

async function buildBase(): Promise<void> {
  const { stdout } = await promisify(execFile)(join(import.meta.dirname, "build-base.sh"), [BASE], {
    env: podmanEnv,
    timeout: 15 * 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  console.log(stdout.trim());
}

async function buildImage(): Promise<void> {
  const started = performance.now();
  // docker format keeps HEALTHCHECK (the OCI format has no place for it);
  // the host network reaches the npm registry however the machine does.
  const build = await podmanResult(
    [
      "build",
      "--format",
      "docker",
      "--network",
      "host",
      "--build-arg",
      `BASE=${BASE}`,
      "-f",
      "Containerfile",
      "-t",
      IMAGE,
      ROOT,
    ],
    20 * 60_000,
  );
  if (build.code !== 0) throw new Error(`podman build failed:\n${build.output}`);
  // The build's `npm ci` runs on Node 20: every dependency must accept it.
  if (build.output.includes("EBADENGINE")) throw new Error(`npm ci warned EBADENGINE on Node 20:\n${build.output}`);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const bytes = Number(await podman(["image", "inspect", "--format", "{{.Size}}", IMAGE]));
  console.log(`image ${IMAGE}: ${(bytes / 1e6).toFixed(1)} MB, built in ${seconds} s (on ${BASE})`);
}

/** `podman system service` on a fresh socket, once the socket is there. */
async function serveDockerApi(): Promise<{ host: string; service: ChildProcess; folder: string }> {
  const folder = await mkdtemp(join(tmpdir(), "podman-api-"));
  const socket = join(folder, "podman.sock");
  const service = spawn("podman", ["system", "service", "--time=0", `unix://${socket}`], {
    env: podmanEnv,
    stdio: "ignore",
  });
  for (let waited = 0; !existsSync(socket); waited += 100) {
    if (service.exitCode !== null || waited > 30_000) throw new Error(`podman system service did not serve ${socket}`);
    // Waiting for another process's socket file: no event to await.
    await new Promise((done) => setTimeout(done, 100));
  }
  return { host: `unix://${socket}`, service, folder };
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await buildBase();
  await buildImage();
  const api = await serveDockerApi();
  project.provide("image", IMAGE);
  project.provide("dockerHost", api.host);
  return async () => {
    api.service.kill("SIGTERM");
    await rm(api.folder, { recursive: true, force: true });
  };
}
