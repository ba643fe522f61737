/**
 * A real Redis for the tests: Debian's `redis-server`, started per test file
 * on a free loopback port with nothing saved to disk, so files never share
 * state and a test may stop and restart its server (the fault tests do).
 * Without the binary the Redis tests are skipped locally, with the reason;
 * in CI (`CI=true`), where `.ci/run` installs it, a missing server fails.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll } from "vitest";
import { type RunningProcess, startProcess } from "../../src/harness/child-process.ts";
import { freePort } from "./processes.ts";

const REDIS_SERVER = process.env.REDIS_SERVER_PATH ?? "/usr/bin/redis-server";

/**
 * Why the Redis tests cannot run here, or undefined when they can. Throws in
 * CI: a missing server there is a broken machine, not a skip.
 *
 * @example
 * const skip = redisSkipReason();
 * describe.skipIf(skip !== undefined)("the Redis store", () => { … });
 */
export function redisSkipReason(): string | undefined {
  if (existsSync(REDIS_SERVER)) return undefined;
  const reason = `no redis-server at ${REDIS_SERVER} (install Debian's redis-server or set REDIS_SERVER_PATH)`;
  if (process.env.CI === "true") throw new Error(`CI needs the Redis tests: ${reason}`);
  return reason;
}

export interface TestRedis {
  /** `redis://127.0.0.1:PORT/0` */
  readonly url: string;
  readonly port: number;
  /** Stops the server (SIGTERM); its data is gone, unless it appends to a file. */
  stop(): Promise<void>;
  /** SIGKILL, as a crash: only what its append-only file holds survives. */
  kill(): Promise<void>;
  /** Starts a server again on the same port (after `stop` or `kill`): empty, or from its append-only file. */
  restart(): Promise<void>;
}

/**
 * A fresh `redis-server` on a free loopback port, once it accepts
 * connections, with `databases` numbered databases (16 unless told). The
 * caller stops it (`afterAll(() => redis.stop())`).
 */
export async function startRedis(
  options: { readonly databases?: number; readonly appendfsync?: "always" | "everysec" } = {},
): Promise<TestRedis> {
  const port = await freePort();
  const databases = options.databases ?? 16;
  // With an fsync policy the server appends to a file, in a directory of its own that outlives a kill.
  const dir = options.appendfsync === undefined ? undefined : await mkdtemp(join(tmpdir(), "redis-aof-"));
  const persistence =
    dir === undefined || options.appendfsync === undefined
      ? ["--appendonly", "no"]
      : ["--appendonly", "yes", "--appendfsync", options.appendfsync, "--dir", dir];
  let server = await launch(port, databases, persistence);
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    async stop() {
      await server.stop();
      if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    },
    async kill() {
      server.child.kill("SIGKILL");
      await server.exited;
    },
    async restart() {
      server = await launch(port, databases, persistence);
    },
  };
}

async function launch(port: number, databases: number, persistence: readonly string[]): Promise<RunningProcess> {
  const server = startProcess(REDIS_SERVER, [
    "--databases",
    String(databases),
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    ...persistence,
    "--protected-mode",
    "yes",
  ]);
  const ready = await server.waitFor(/Ready to accept connections/, 15_000);
  if (ready.kind !== "matched") {
    await server.stop();
    throw new Error(`redis-server did not start (${ready.kind}): ${server.output()}`);
  }
  return server;
}

/**
 * A test Redis for the file's tests, started before them and stopped after,
 * with ioredis clients on it that are closed with it.
 *
 * @example
 * const redis = useRedis();
 * it("…", async () => { const store = createRedisStore(redis.client()); … });
 */
export function useRedis(): { readonly server: () => TestRedis; client(): Redis } {
  let server: TestRedis | undefined;
  const clients: Redis[] = [];
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    for (const made of clients) made.disconnect();
    await server?.stop();
  });
  const running = (): TestRedis => {
    if (server === undefined) throw new Error("the test Redis is not started yet (use it inside a test)");
    return server;
  };
  return {
    server: running,
    client() {
      const made = new Redis(running().url, { maxRetriesPerRequest: 1 });
      clients.push(made);
      return made;
    },
  };
}
