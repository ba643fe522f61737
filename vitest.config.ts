import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Servers under test listen on port 0; two cores are the CI machine's size.
    maxWorkers: 2,
  },
});
