import { defineConfig } from "vitest/config";

// The harness's mutation run has one test: the contract run in-process (test/mutation/contract-run.test.ts).
export default defineConfig({
  test: {
    testTimeout: 120_000,
    maxWorkers: 1,
    include: ["test/mutation/contract-run.test.ts"],
  },
});
