import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { defineConfig } from "vitest/config";

// The HTTP suite runs a second time on the Redis store when a redis-server is here; CI always has one
// (.ci/run installs it), and there a missing server fails the Redis tests rather than skipping them.
const REDIS_SERVER = process.env.REDIS_SERVER_PATH ?? "/usr/bin/redis-server";
const onRedis = existsSync(REDIS_SERVER) || process.env.CI === "true";
if (!onRedis) console.warn(`the redis test project is skipped: no redis-server at ${REDIS_SERVER}`);

// What the `redis` project runs of test/http: each of these files reaches a store method the HTTP layer
// cannot answer by itself (a debit, a placement race, a reference, a customer's data).
const REDIS_HTTP_FILES = [
  "admin-api",
  "concurrency",
  "fuzz-conservation",
  "gone-endpoint-money",
  "isolation",
  "public-api",
  "references",
  "store-under-test",
];

// The image tests need podman, runc and mmdebstrap; .ci/run installs them, so CI never skips them.
const CONTAINER_TOOLS = "command -v podman && command -v runc && command -v mmdebstrap";
const onPodman = process.env.CI === "true" || spawnsOk("sh", ["-c", CONTAINER_TOOLS]);
if (!onPodman) console.warn("the container test project is skipped: apt-get install -y podman runc mmdebstrap");

function spawnsOk(command: string, args: string[]): boolean {
  try {
    execFileSync(command, args, { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Servers under test listen on port 0; two cores are the CI machine's size.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["src/**/*.test.ts", "test/**/*.test.ts"],
          // test/mutation: the harness's mutation run's test (npm run mutation:harness), a whole contract run.
          exclude: ["test/package/**", "test/container/**", "test/mutation/**"],
        },
      },
      ...(onRedis
        ? [
            {
              // The HTTP files that test the store (money, atomicity, references, customers), again with
              // every simulator on its own database of a real redis-server. Files about the HTTP layer
              // alone (validation, headers, OpenAPI, CORS, fuzzed input) run once, on the memory store.
              extends: true as const,
              test: {
                name: "redis",
                include: REDIS_HTTP_FILES.map((name) => `test/http/${name}.test.ts`),
                env: { AIRTIME_TEST_STORE: "redis" },
                setupFiles: ["test/support/redis-project.ts"],
              },
            },
          ]
        : []),
      ...(onPodman
        ? [
            {
              // The image built once per run from the Containerfile, and the Testcontainers example against it.
              extends: true as const,
              test: {
                name: "container",
                include: ["test/container/**/*.test.ts", "examples/testcontainers/*.test.js"],
                globalSetup: ["test/container/global-setup.ts"],
                setupFiles: ["test/container/testcontainers-env.ts"],
                testTimeout: 180_000,
                hookTimeout: 300_000,
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
