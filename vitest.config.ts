import { existsSync } from "node:fs";
import { defineConfig } from "vitest/config";

// The HTTP suite runs a second time on the Redis store when a redis-server is here; CI always has one
// (.ci/run installs it), and there a missing server fails the Redis tests rather than skipping them.
const REDIS_SERVER = process.env.REDIS_SERVER_PATH ?? "/usr/bin/redis-server";
const onRedis = existsSync(REDIS_SERVER) || process.env.CI === "true";
if (!onRedis) console.warn(`the redis test project is skipped: no redis-server at ${REDIS_SERVER}`);

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Servers under test listen on port 0; two cores are the CI machine's size.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: { name: "unit", include: ["src/**/*.test.ts", "test/**/*.test.ts"], exclude: ["test/package/**"] },
      },
      ...(onRedis
        ? [
            {
              // The HTTP suite again, every simulator on its own database of a real redis-server.
              extends: true as const,
              test: {
                name: "redis",
                include: ["test/http/**/*.test.ts"],
                env: { AIRTIME_TEST_STORE: "redis" },
                setupFiles: ["test/support/redis-project.ts"],
              },
            },
          ]
        : []),
      {
        // The package as a user gets it: packed once per run, installed into temporary projects.
        extends: true,
        test: {
          name: "package",
          include: ["test/package/**/*.test.ts"],
          globalSetup: ["test/package/global-setup.ts"],
          testTimeout: 180_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
