/**
 * The check behind `npm run mutation:check`: a survivor (passed or never
 * reached) the baseline does not list is reported as a row ready for its
 * reason, a listed one is not, and a killed mutant never is — read from a
 * Stryker JSON report or from a stopped run's event-recorder directory. A
 * row names the mutant by what it is, so code added above it keeps it listed.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { baselineRow, counts, readRun, unlistedSurvivors } from "../../scripts/mutation-check.ts";

const dir = mkdtempSync(join(tmpdir(), "mutation-check-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FILE = "src/domain/rules.ts";
const SOURCE = `export function share(coin: number, upTo: number): boolean {
  if (coin < upTo) return a || b;
  return coin < upTo;
}
`;
/** A mutant of SOURCE at 1-based `line`, from `column` up to `end` (exclusive), `lines` lower when code was added above. */
const mutant = (
  line: number,
  column: number,
  end: number,
  mutatorName: string,
  replacement: string,
  status: string,
) => ({
  mutatorName,
  replacement,
  status,
  location: { start: { line, column }, end: { line, column: end } },
});
function mutants(shift = 0) {
  return [
    mutant(2 + shift, 7, 18, "EqualityOperator", "coin <= upTo", "Survived"),
    mutant(2 + shift, 27, 33, "ConditionalExpression", "a |\n  b", "NoCoverage"),
    mutant(3 + shift, 10, 21, "EqualityOperator", "coin <= upTo", "Survived"),
    mutant(3 + shift, 10, 21, "BooleanLiteral", "false", "Killed"),
    mutant(2 + shift, 3, 36, "BlockStatement", "{}", "Timeout"),
    mutant(3 + shift, 3, 21, "BlockStatement", "{}", "Ignored"),
  ];
}
const BASELINE = `| file | function | mutator | original | replacement | n | line | reason |
|---|---|---|---|---|---|---|---|
| \`${FILE}\` | share | EqualityOperator | \`coin < upTo\` | \`coin <= upTo\` | 1 | 2 | equivalent: the coin never equals a share's bound |
`;

/** A JSON report of the mutants in a checkout under `dir`, the source `prefix`ed by lines added above. */
function writeReport(name: string, prefix = ""): string {
  const path = join(dir, `${name}.json`);
  const shift = prefix.split("\n").length - 1;
  writeFileSync(path, JSON.stringify({ files: { [FILE]: { source: prefix + SOURCE, mutants: mutants(shift) } } }));
  return path;
}

/** The same mutants as a stopped run's events, in a checkout whose source is the file itself. */
function writeEvents(): string {
  const checkout = join(dir, "checkout");
  const events = join(checkout, "reports/mutation/events/harness-seed-7");
  mkdirSync(join(checkout, "src/domain"), { recursive: true });
  mkdirSync(events, { recursive: true });
  writeFileSync(join(checkout, FILE), SOURCE);
  writeFileSync(join(events, "00000-onDryRunCompleted.json"), "{}");
  mutants().forEach((m, index) => {
    const name = `${String(index + 1).padStart(5, "0")}-onMutantTested.json`;
    writeFileSync(join(events, name), JSON.stringify({ ...m, fileName: join(checkout, FILE) }));
  });
  return events;
}

describe("mutation:check", () => {
  test("a JSON report: only the unlisted survivors are reported, as baseline rows", async () => {
    const run = await readRun(writeReport("plain"));
    expect(unlistedSurvivors(run, BASELINE).map((m) => baselineRow(m))).toEqual([
      `| \`${FILE}\` | share | ConditionalExpression | \`a \\|\\| b\` | \`a \\| b\` | 1 | 2 | NoCoverage: reason? |`,
      `| \`${FILE}\` | share | EqualityOperator | \`coin < upTo\` | \`coin <= upTo\` | 2 | 3 | Survived: reason? |`,
    ]);
    expect(counts(run)).toBe("6 tested: 1 Ignored, 1 Killed, 1 NoCoverage, 2 Survived, 1 Timeout; score 40.00");
  });

  test("a row written from a reported survivor lists it", async () => {
    const run = await readRun(writeReport("rows"));
    const rows = unlistedSurvivors(run, BASELINE).map((m) => baselineRow(m, "free"));
    expect(unlistedSurvivors(run, `${BASELINE}${rows.join("\n")}\n`)).toEqual([]);
  });

  test("code added above a listed mutant leaves it listed", async () => {
    const moved = await readRun(writeReport("moved", "import { a, b } from './ab.ts';\n\n// the rules\n"));
    expect(unlistedSurvivors(moved, BASELINE).map((m) => [m.original, m.occurrence, m.line])).toEqual([
      ["a || b", 1, 5],
      ["coin < upTo", 2, 6],
    ]);
  });

  test("a stopped run's events read as its report does, named from the run's checkout", async () => {
    expect(await readRun(writeEvents())).toEqual(await readRun(writeReport("events")));
  });
});
