/**
 * Which store the simulators of the shared HTTP helpers use. The `unit`
 * project runs the HTTP suite on the embedded memory store; the `redis`
 * project (`AIRTIME_TEST_STORE=redis`) runs the same files again with every
 * simulator on its own, empty database of a real `redis-server`, started
 * once per test file and stopped after it (`test/support/redis-project.ts`).
 */
import { startRedis, type TestRedis } from "./redis.ts";

/** True in the `redis` project. */
export const ON_REDIS = process.env.AIRTIME_TEST_STORE === "redis";

/** Enough for every simulator one test file starts; each gets a database of its own. */
const DATABASES = 4_096;

let server: Promise<TestRedis> | undefined;
let nextDatabase = 0;

/** The `store` option for the next simulator: undefined (memory) or a fresh Redis database. */
export async function testStore(): Promise<string | undefined> {
  if (!ON_REDIS) return undefined;
  server ??= startRedis({ databases: DATABASES });
  const { port } = await server;
  if (nextDatabase >= DATABASES) throw new Error(`a test file started more than ${DATABASES} simulators`);
  return `redis://127.0.0.1:${port}/${nextDatabase++}`;
}

/** Stops the file's `redis-server`, if one was started. */
export async function stopTestStore(): Promise<void> {
  const started = server;
  server = undefined;
  if (started !== undefined) await (await started).stop();
}
