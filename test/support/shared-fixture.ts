/**
 * One value shared by all the tests of a file: started in `beforeAll`,
 * stopped in `afterAll`. What it returns stands for the started value, so a
 * file writes `const env = sharedFixture(start, stop)` at the top instead of
 * a `let`, a `beforeAll` and an `afterAll`.
 */
import { afterAll, beforeAll } from "vitest";

/**
 * @example
 * const server = sharedFixture(() => startServer(), (started) => started.close());
 * test("answers", async () => expect((await fetch(server.url)).status).toBe(200));
 */
export function sharedFixture<T extends object>(start: () => Promise<T>, stop: (value: T) => Promise<void>): T {
  let current: T | undefined;
  beforeAll(async () => {
    current = await start();
  });
  afterAll(async () => {
    // A failed start leaves nothing to stop.
    if (current !== undefined) await stop(current);
  });
  const started = (): T => {
    if (current === undefined) throw new Error("a shared fixture is read before its beforeAll has run");
    return current;
  };
  return new Proxy({} as T, {
    get: (_target, key) => Reflect.get(started(), key),
    has: (_target, key) => Reflect.has(started(), key),
  });
}
