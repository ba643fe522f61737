/**
 * The dead-code check in `npm run lint`: no unused file, export, dependency
 * or devDependency. Tests are entries too, so an export that only tests use
 * counts as used.
 */
import type { KnipConfig } from "knip";

const config: KnipConfig = {
  // ui/src/main.tsx: the dashboard's front end, built by vite.config.ts.
  entry: [
    "src/index.ts",
    "src/testing/index.ts",
    "src/testing/vitest.ts",
    "src/cli/main.ts",
    "bin/*.js",
    "bench/*.ts",
    "scripts/*.ts",
    "test/**/*.test.ts",
    "examples/testcontainers/*.test.js",
    "ui/src/main.tsx",
    "mutation/*.config.mjs",
  ],
  project: ["src/**/*.ts", "bin/**/*.js", "bench/**/*.ts", "scripts/**/*.ts", "test/**/*.ts", "ui/src/**/*.{ts,tsx}"],
  // A type that names an exported function's parameter or result stays exported, so callers can name it too.
  ignoreExportsUsedInFile: { interface: true, type: true },
  // Prism is not imported: `--validate-with-prism` spawns its binary, node_modules/.bin/prism.
  // Stryker loads its vitest runner by the name mutation/tests.config.mjs gives; its command runner is
  // part of @stryker-mutator/core, not a package of its own. openapi-fetch is imported by the clients
  // test/outside-tools/ writes beside the types it generates, not by a file of the project.
  ignoreDependencies: [
    "@stoplight/prism-cli",
    "@stryker-mutator/vitest-runner",
    "@stryker-mutator/command-runner",
    "openapi-fetch",
  ],
  // The bench runs WireMock's jar with the system's Java when there is one, the container tests
  // drive the system's podman, and the structure report runs the machine's `duplicates`. None is a package.
  ignoreBinaries: ["java", "podman", "duplicates"],
};

export default config;
