/**
 * The test of the harness's mutation run (`npm run mutation:harness`): the
 * contract run on the in-process simulator, exactly as
 * `airtime-harness contract --runs 25 --seed S --max-failures 1 --quiet` runs
 * it, but inside a test runner kept alive between mutants: the runner
 * process and its compiled modules stay, each run loads them afresh in a
 * worker thread from vitest's transform cache, and Stryker picks the mutant
 * at runtime, rather than starting node and the TypeScript loader and
 * compiling the program per mutant. Not part of `npm test`: a mutant the run
 * passes has survived the harness.
 */
import { expect, test } from "vitest";
import { contract } from "../../src/cli/contract.ts";

/** `MUTATION_SEED` picks the run's seed, as the command line's `--seed` would. */
const seed = process.env.MUTATION_SEED ?? "7";

test(`the contract run at seed ${seed} passes`, async () => {
  const exitCode = await contract(["--runs", "25", "--seed", seed, "--max-failures", "1", "--quiet"]);
  expect(exitCode).toBe(0);
});
