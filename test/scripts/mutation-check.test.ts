/**
 * The check behind `npm run mutation:check`: a survivor (passed or never
 * reached) the baseline does not list is reported as a row ready for its
 * reason, a listed one is not, and a killed mutant never is — read from a
 * Stryker JSON report or from a stopped run's event-recorder directory.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { baselineRow, counts, readRun, unlistedSurvivors } from "../../scripts/mutation-check.ts";

const dir = mkdtempSync(join(tmpdir(), "mutation-check-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FILE = "src/domain/lifecycle.ts";
const mutant = (line: number, mutatorName: string, replacement: string, status: string) => ({
  mutatorName,
  replacement,
  status,
  location: { start: { line, column: 5 }, end: { line, column: 9 } },
});
const MUTANTS = [
  mutant(77, "EqualityOperator", "coin <= upTo", "Survived"),
  mutant(78, "ConditionalExpression", "a |\n  b", "NoCoverage"),
  mutant(79, "BooleanLiteral", "false", "Killed"),
  mutant(80, "BlockStatement", "{}", "Timeout"),
  mutant(81, "BlockStatement", "{}", "Ignored"),
];
const BASELINE = `| where | mutator | replacement | reason |
|---|---|---|---|
| \`${FILE}:77:5\` | EqualityOperator | \`coin <= upTo\` | equivalent: the coin never equals a share's bound |
`;

function writeReport(): string {
  const path = join(dir, "harness-seed-7.json");
  writeFileSync(path, JSON.stringify({ files: { [FILE]: { mutants: MUTANTS } } }));
  return path;
}

function writeEvents(): string {
  const events = join(dir, "events");
  mkdirSync(events);
  writeFileSync(join(events, "00000-onDryRunCompleted.json"), "{}");
  MUTANTS.forEach((m, index) => {
    const name = `${String(index + 1).padStart(5, "0")}-onMutantTested.json`;
    writeFileSync(join(events, name), JSON.stringify({ ...m, fileName: resolve(FILE) }));
  });
  return events;
}

describe("mutation:check", () => {
  test("a JSON report: only the unlisted survivor is reported, as a baseline row", async () => {
    const mutants = await readRun(writeReport());
    const missing = unlistedSurvivors(mutants, BASELINE);
    expect(missing.map(baselineRow)).toEqual([
      `| \`${FILE}:78:5\` | ConditionalExpression | \`a \\| b\` | NoCoverage: reason? |`,
    ]);
    expect(counts(mutants)).toBe("5 tested: 1 Ignored, 1 Killed, 1 NoCoverage, 1 Survived, 1 Timeout; score 50.00");
  });

  test("a row written from a reported survivor lists it", async () => {
    const mutants = await readRun(writeReport());
    const rows = unlistedSurvivors(mutants, BASELINE).map((m) => baselineRow(m).replace("reason?", "free"));
    expect(unlistedSurvivors(mutants, `${BASELINE}${rows.join("\n")}\n`)).toEqual([]);
  });

  test("a stopped run's events read as its report does", async () => {
    expect(await readRun(writeEvents())).toEqual(await readRun(writeReport()));
  });
});
