/**
 * The harness measured: every mutant of the domain is run against the
 * contract run on the in-process simulator; a mutant the run passes has
 * survived the harness. `MUTATION_SEED` picks the run's seed (default 7).
 */
import { baseConfig } from "./shared.mjs";

const seed = Number(process.env.MUTATION_SEED ?? 7);

export default {
  ...baseConfig(`harness-seed-${seed}`),
  testRunner: "command",
  commandRunner: {
    command: `node bin/airtime-harness.js contract --runs 25 --seed ${seed} --max-failures 1 --quiet`,
  },
  // No coverage analysis with a command: every mutant runs the whole contract run.
  coverageAnalysis: "off",
};
