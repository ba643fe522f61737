/**
 * What both mutation runs share: the code that holds the money and
 * idempotency rules, the mutators that make sense for it, and where the
 * reports go (reports/ is not committed).
 */

import { readFileSync } from "node:fs";
import ts from "typescript";

/**
 * The functions that hold the money and idempotency rules, by file. Named
 * rather than given as line ranges: ranges drift as the code around them
 * moves, and then measure other code (a fault path, a type) than the rules.
 */
const RULES = {
  "src/domain/idempotency.ts": [
    "fingerprintOrder",
    "fingerprintOfKnownFields",
    "fingerprintOfAnyFields",
    "finishedOf",
    "createKeyedQueue",
  ],
  "src/domain/order-placement.ts": [
    "walletOf",
    "newOrder",
    "started",
    "placeAtomically",
    "placeWithFirstStep",
    "replayOf",
    "orderFromEvicted",
  ],
  "src/domain/lifecycle.ts": [
    "isOrderStepPayload",
    "failedOutcome",
    "createDefaultPlan",
    "countImmediateSteps",
    "createStatusChanges",
    "fundingOf",
    "announce",
    "announceAgainIfTaken",
    "lookAgainForOrder",
    "scheduleStep",
    "scheduleFirst",
  ],
  "src/domain/customers.ts": ["createCustomerDirectory"],
};

/** `file:start-end` for each named top-level function of `file`; a name not found is an error, not a silent gap. */
function rangesOf(file, names) {
  const text = readFileSync(new URL(`../${file}`, import.meta.url), "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const spans = new Map();
  for (const statement of source.statements) {
    if (!ts.isFunctionDeclaration(statement) || statement.name === undefined) continue;
    const line = (pos) => source.getLineAndCharacterOfPosition(pos).line + 1;
    spans.set(statement.name.text, `${file}:${line(statement.getStart(source))}-${line(statement.getEnd())}`);
  }
  return names.map((name) => {
    const span = spans.get(name);
    if (span === undefined) throw new Error(`mutation scope: no function ${name} in ${file}`);
    return span;
  });
}

/** Line ranges of the domain under mutation (file:start-end), found from the functions' names. */
export const MUTATE = Object.entries(RULES).flatMap(([file, names]) => rangesOf(file, names));

/**
 * A narrower scope from `MUTATE` (comma-separated): a file of RULES stands
 * for its named functions (`MUTATE=src/domain/order-placement.ts` runs that
 * file's rules only); anything else is passed to Stryker as it is.
 */
function scopeOf(list) {
  return list.split(",").flatMap((entry) => (entry in RULES ? rangesOf(entry, RULES[entry]) : [entry]));
}

/**
 * Texts, object and array literals and regular expressions are off: mutating
 * messages and literals says nothing about the rules.
 */
const EXCLUDED_MUTATIONS = ["StringLiteral", "ObjectLiteral", "ArrayDeclaration", "Regex"];

/** The Stryker options of one run, its reports named `name`. */
export function baseConfig(name) {
  return {
    mutate: process.env.MUTATE ? scopeOf(process.env.MUTATE) : MUTATE,
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
    // A mutant whose run takes longer than the dry run's (times the factor, plus this) counts as a Timeout,
    // and Stryker scores a Timeout as killed. On a loaded two-core machine a passing run takes several
    // times its dry run: with the default 5 s, most mutants of a seed "timed out" and hid their survivors.
    timeoutMS: Number(process.env.MUTATION_TIMEOUT_MS ?? 60_000),
    timeoutFactor: 2,
    thresholds: { high: 90, low: 75, break: null },
  };
}
