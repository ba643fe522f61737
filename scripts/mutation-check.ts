/**
 * The survivors of the harness's mutation runs that mutation/baseline.md
 * does not list. Reads Stryker's JSON reports (reports/mutation/harness-seed-*.json
 * by default) or, for a run stopped before its end, the directory its
 * event-recorder reporter filled (reports/mutation/events/harness-seed-N).
 * Prints each run's counts, then every unlisted survivor as a baseline row
 * with its reason left to write; exits 1 when there is one.
 *
 * A mutant is named by what it is, not where: its file, the function it
 * sits in, the mutator, the code it replaces and what that becomes (and,
 * when the same code appears more than once in that function, which
 * occurrence). Code moved, or added above a mutant, leaves its row valid;
 * the line is kept in the row only to find it.
 *
 *   npm run -s mutation:check [report.json | events-dir]...
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import ts from "typescript";

const REPORTS = "reports/mutation";
const BASELINE = "mutation/baseline.md";
/** Longer original code is shown by its start and end: a whole block would fill the row. */
const ORIGINAL_SHOWN = 60;

/** What a report says of one mutant (Stryker's mutation-testing-report schema, 1-based lines). */
export interface MutantOutcome {
  readonly file: string;
  /** The top-level function the mutant sits in (the names mutation/shared.mjs lists). */
  readonly fn: string;
  readonly mutatorName: string;
  /** The code the mutant replaces, on one line (abbreviated when long). */
  readonly original: string;
  readonly replacement: string;
  /** 1 for the first place `original` appears in `fn`, 2 for the next… */
  readonly occurrence: number;
  readonly line: number;
  readonly status: string;
}

interface Position {
  readonly line: number;
  readonly column: number;
}

interface MutantJson {
  readonly mutatorName: string;
  readonly replacement?: string;
  readonly status: string;
  readonly location: { readonly start: Position; readonly end: Position };
}

/** A mutant the run did not kill: it passed the run, or the run never reached it. */
const SURVIVING = new Set(["Survived", "NoCoverage"]);

/** One line, spaces collapsed: a table cell holds it. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** Code as a row shows it: one line, its middle left out when long. */
function shown(code: string): string {
  const line = oneLine(code);
  return line.length <= ORIGINAL_SHOWN ? line : `${line.slice(0, 40).trimEnd()} … ${line.slice(-15).trimStart()}`;
}

/** Where each named top-level function of a source starts and ends (offsets). */
function functionsOf(fileName: string, source: string): { name: string; start: number; end: number }[] {
  const parsed = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  return parsed.statements.flatMap((statement) =>
    ts.isFunctionDeclaration(statement) && statement.name !== undefined
      ? [{ name: statement.name.text, start: statement.getStart(parsed), end: statement.getEnd() }]
      : [],
  );
}

/** The mutants of one source file, each named by its function, its original code and that code's occurrence. */
function outcomesOf(file: string, source: string, mutants: readonly MutantJson[]): MutantOutcome[] {
  const lineStarts = [0];
  for (let i = 0; i < source.length; i++) if (source[i] === "\n") lineStarts.push(i + 1);
  // Report positions are 1-based lines and columns, the end exclusive.
  const offset = ({ line, column }: Position) => (lineStarts[line - 1] ?? source.length) + column - 1;
  const functions = functionsOf(file, source);
  return mutants.map((mutant) => {
    const start = offset(mutant.location.start);
    const code = source.slice(start, offset(mutant.location.end));
    const fn = functions.find((f) => f.start <= start && start < f.end);
    let occurrence = 0;
    for (let at = source.indexOf(code, fn?.start ?? 0); at !== -1 && at <= start; at = source.indexOf(code, at + 1)) {
      occurrence++;
    }
    return {
      file,
      fn: fn?.name ?? "(top level)",
      mutatorName: mutant.mutatorName,
      original: shown(code),
      replacement: oneLine(mutant.replacement ?? ""),
      occurrence,
      line: mutant.location.start.line,
      status: mutant.status,
    };
  });
}

/** The baseline's key of a mutant: what it is, never where. */
function keyOf(mutant: Pick<MutantOutcome, "file" | "fn" | "mutatorName" | "original" | "replacement" | "occurrence">) {
  return `${mutant.file} ${mutant.fn} ${mutant.mutatorName} ${mutant.original} → ${mutant.replacement} #${mutant.occurrence}`;
}

/** The mutants of a JSON report, or of an event-recorder directory. */
export async function readRun(path: string): Promise<MutantOutcome[]> {
  return (await stat(path)).isDirectory() ? readEvents(path) : readReport(path);
}

/** A report's source of a file, or the file as it is now when the report holds none. */
async function sourceOf(fileName: string, source: string | undefined): Promise<string> {
  return source ?? readFile(fileName, "utf8");
}

async function readReport(path: string): Promise<MutantOutcome[]> {
  const report = JSON.parse(await readFile(path, "utf8")) as {
    files: Record<string, { source?: string; mutants: MutantJson[] }>;
  };
  const files = await Promise.all(
    Object.entries(report.files).map(async ([file, { source, mutants }]) =>
      outcomesOf(relative(process.cwd(), file), await sourceOf(file, source), mutants),
    ),
  );
  return files.flat();
}

/** The mutants an event-recorder directory holds so far, judged against their files as they are now. */
async function readEvents(dir: string): Promise<MutantOutcome[]> {
  // The run's checkout: its files are named from there (the directory is <checkout>/reports/mutation/events/<run>).
  const root = resolve(dir, "../../../..");
  const names = (await readdir(dir)).filter((name) => name.endsWith("-onMutantTested.json")).sort();
  const events = await Promise.all(
    names.map(async (name) => JSON.parse(await readFile(join(dir, name), "utf8")) as MutantJson & { fileName: string }),
  );
  const byFile = new Map<string, MutantJson[]>();
  for (const event of events) byFile.set(event.fileName, [...(byFile.get(event.fileName) ?? []), event]);
  const files = await Promise.all(
    [...byFile].map(async ([fileName, mutants]) =>
      outcomesOf(relative(root, fileName), await sourceOf(fileName, undefined), mutants),
    ),
  );
  // In the order they were tested, as a report lists them by file.
  return files.flat();
}

/** A table cell's code, its pipes unescaped: `` `code` `` → code. */
function codeCell(cell: string | undefined): string | undefined {
  const code = /^`(.*)`$/.exec(cell ?? "");
  return code === null ? undefined : code[1]!.replace(/\\\|/g, "|");
}

/** The keys of the baseline's rows: `| file | function | mutator | original | replacement | n | line | reason |`. */
function baselineKeys(baseline: string): Set<string> {
  const keys = new Set<string>();
  for (const line of baseline.split("\n")) {
    const cells = line.split(/(?<!\\)\|/).map((cell) => cell.trim());
    const [file, original, replacement] = [codeCell(cells[1]), codeCell(cells[4]), codeCell(cells[5])];
    const occurrence = Number(cells[6]);
    if (file === undefined || original === undefined || replacement === undefined || !(occurrence >= 1)) continue;
    keys.add(
      keyOf({
        file,
        fn: cells[2]!,
        mutatorName: cells[3]!,
        original: oneLine(original),
        replacement: oneLine(replacement),
        occurrence,
      }),
    );
  }
  return keys;
}

async function defaultRuns(): Promise<string[]> {
  const names = await readdir(REPORTS).catch(() => [] as string[]);
  return names.filter((name) => /^harness-seed-\d+\.json$/.test(name)).map((name) => join(REPORTS, name));
}

/** The mutants a run did not kill that the baseline (its text) does not list. */
export function unlistedSurvivors(mutants: readonly MutantOutcome[], baseline: string): MutantOutcome[] {
  const listed = baselineKeys(baseline);
  return mutants.filter((m) => SURVIVING.has(m.status) && !listed.has(keyOf(m)));
}

/** A run's tally by status and its score (killed and timed out of all but the ignored). */
export function counts(mutants: readonly MutantOutcome[]): string {
  const tally = new Map<string, number>();
  for (const { status } of mutants) tally.set(status, (tally.get(status) ?? 0) + 1);
  const killed = (tally.get("Killed") ?? 0) + (tally.get("Timeout") ?? 0);
  const valid = killed + (tally.get("Survived") ?? 0) + (tally.get("NoCoverage") ?? 0);
  const score = valid === 0 ? "–" : ((100 * killed) / valid).toFixed(2);
  const parts = [...tally].sort(([a], [b]) => a.localeCompare(b)).map(([status, n]) => `${n} ${status}`);
  return `${mutants.length} tested: ${parts.join(", ")}; score ${score}`;
}

/** Code as a table cell: in backticks, its pipes escaped. */
function cell(code: string): string {
  return `\`${code.replace(/\|/g, "\\|")}\``;
}

/** A baseline row for a mutant, with `reason` (by default the status, its reason to be written). */
export function baselineRow(mutant: MutantOutcome, reason = `${mutant.status}: reason?`): string {
  const { file, fn, mutatorName, original, replacement, occurrence, line } = mutant;
  return `| ${cell(file)} | ${fn} | ${mutatorName} | ${cell(original)} | ${cell(replacement)} | ${occurrence} | ${line} | ${reason} |`;
}

async function main(args: readonly string[]): Promise<number> {
  const runs = args.length > 0 ? args : await defaultRuns();
  if (runs.length === 0) {
    console.error(`mutation:check: no report in ${REPORTS}/ (run npm run mutation:harness first)`);
    return 2;
  }
  const baseline = await readFile(BASELINE, "utf8");
  let unlisted = 0;
  for (const run of runs) {
    const mutants = await readRun(run);
    const missing = unlistedSurvivors(mutants, baseline);
    unlisted += missing.length;
    console.log(`${run}: ${counts(mutants)}; ${missing.length} survivors not in the baseline`);
    for (const mutant of missing) console.log(baselineRow(mutant));
  }
  return unlisted === 0 ? 0 : 1;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  process.exitCode = await main(process.argv.slice(2));
}
