/**
 * The tests measured: every mutant of the domain is run against the vitest
 * files that exercise the domain and the simulator's own features (see
 * vitest.config.ts beside this file); a mutant they all pass has survived.
 */
import { baseConfig } from "./shared.mjs";

export default {
  ...baseConfig("tests"),
  testRunner: "vitest",
  plugins: ["@stryker-mutator/vitest-runner"],
  vitest: { configFile: "mutation/vitest.config.ts", related: false },
  coverageAnalysis: "perTest",
};
