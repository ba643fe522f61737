import { defineConfig } from "vitest/config";

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
