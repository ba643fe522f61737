/**
 * The harness measured: every mutant of the domain is run against the
 * contract run on the in-process simulator; a mutant the run passes has
 * survived the harness. `MUTATION_SEED` picks the run's seed (default 7).
 *
 * The run is the one `airtime-harness contract --runs 25 --seed S
 * --max-failures 1 --quiet` makes, called inside a vitest worker
 * (test/mutation/contract-run.test.ts): the worker stays loaded and Stryker
 * switches mutants at runtime, instead of paying a process start per mutant.
 */
import { baseConfig } from "./shared.mjs";

const seed = Number(process.env.MUTATION_SEED ?? 7);

export default {
  ...baseConfig(`harness-seed-${seed}`),
  testRunner: "vitest",
  plugins: ["@stryker-mutator/vitest-runner"],
  vitest: { configFile: "mutation/contract-run.vitest.config.ts", related: false },
  // One test: coverage only tells which mutants the run never reaches.
  coverageAnalysis: "perTest",
};
