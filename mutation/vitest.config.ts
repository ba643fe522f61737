import { defineConfig } from "vitest/config";

// The test files the tests' mutation run measures: the domain's own suites and the simulator features
// they do not reach (a mutant of the domain is judged by the tests written for the domain).
export default defineConfig({
  test: {
    testTimeout: 60_000,
    maxWorkers: 2,
    include: ["test/domain/**/*.test.ts", "test/simulator/features.test.ts", "test/webhooks/announce-again.test.ts"],
  },
});
