/**
 * What both mutation runs share: the code that holds the money and
 * idempotency rules, the mutators that make sense for it, and where the
 * reports go (reports/ is not committed).
 */

/** Line ranges of the domain under mutation (file:start-end). */
export const MUTATE = [
  "src/domain/idempotency.ts:24-113",
  "src/domain/order-placement.ts:34-171",
  "src/domain/status-changes.ts:94-278",
  "src/domain/lifecycle.ts:53-98",
  "src/domain/customers.ts:130-198",
];

/**
 * Texts, object and array literals and regular expressions are off: mutating
 * messages and literals says nothing about the rules.
 */
const EXCLUDED_MUTATIONS = ["StringLiteral", "ObjectLiteral", "ArrayDeclaration", "Regex"];

/** The Stryker options of one run, its reports named `name`. */
export function baseConfig(name) {
  return {
    mutate: process.env.MUTATE ? process.env.MUTATE.split(",") : MUTATE,
    mutator: { excludedMutations: EXCLUDED_MUTATIONS },
    // event-recorder writes each mutant's result as it is tested, so a run stopped early still shows its survivors.
    reporters: ["clear-text", "progress", "html", "json", "event-recorder"],
    eventReporter: { baseDir: `reports/mutation/events/${name}` },
    htmlReporter: { fileName: `reports/mutation/${name}.html` },
    jsonReporter: { fileName: `reports/mutation/${name}.json` },
    tempDirName: ".tmp/stryker",
    cleanTempDir: "always",
    // Two cores: more processes only queue.
    concurrency: Number(process.env.MUTATION_CONCURRENCY ?? 2),
    thresholds: { high: 90, low: 75, break: null },
  };
}
