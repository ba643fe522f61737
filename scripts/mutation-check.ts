/**
 * The survivors of the harness's mutation runs that mutation/baseline.md
 * does not list. Reads Stryker's JSON reports (reports/mutation/harness-seed-*.json
 * by default) or, for a run stopped before its end, the directory its
 * event-recorder reporter filled (reports/mutation/events/harness-seed-N).
 * Prints each run's counts, then every unlisted survivor as a baseline row
 * with its reason left to write; exits 1 when there is one.
 *
 *   npm run -s mutation:check [report.json | events-dir]...
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { join, relative, resolve } from "node:path";

const REPORTS = "reports/mutation";
const BASELINE = "mutation/baseline.md";

/** What a report says of one mutant (Stryker's mutation-testing-report schema, 1-based lines). */
export interface MutantOutcome {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly mutatorName: string;
  readonly replacement: string;
  readonly status: string;
}

interface MutantJson {
  readonly mutatorName: string;
  readonly replacement?: string;
  readonly status: string;
  readonly location: { readonly start: { readonly line: number; readonly column: number } };
}

/** A mutant the run did not kill: it passed the run, or the run never reached it. */
const SURVIVING = new Set(["Survived", "NoCoverage"]);

/** One line, spaces collapsed: a replacement as a table cell holds it. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function outcome(file: string, mutant: MutantJson): MutantOutcome {
  return {
    file: relative(process.cwd(), file),
    line: mutant.location.start.line,
    column: mutant.location.start.column,
    mutatorName: mutant.mutatorName,
    replacement: oneLine(mutant.replacement ?? ""),
    status: mutant.status,
  };
}

/** The baseline's key of a mutant: where, which mutator, what it becomes. */
function keyOf(mutant: Pick<MutantOutcome, "file" | "line" | "column" | "mutatorName" | "replacement">): string {
  return `${mutant.file}:${mutant.line}:${mutant.column} ${mutant.mutatorName} ${mutant.replacement}`;
}

/** The mutants of a JSON report, or of an event-recorder directory. */
export async function readRun(path: string): Promise<MutantOutcome[]> {
  return (await stat(path)).isDirectory() ? readEvents(path) : readReport(path);
}

async function readReport(path: string): Promise<MutantOutcome[]> {
  const report = JSON.parse(await readFile(path, "utf8")) as {
    files: Record<string, { mutants: MutantJson[] }>;
  };
  return Object.entries(report.files).flatMap(([file, { mutants }]) => mutants.map((m) => outcome(file, m)));
}

/** The mutants an event-recorder directory holds so far (its events keep 1-based lines too). */
async function readEvents(dir: string): Promise<MutantOutcome[]> {
  const names = (await readdir(dir)).filter((name) => name.endsWith("-onMutantTested.json")).sort();
  return Promise.all(
    names.map(async (name) => {
      const event = JSON.parse(await readFile(join(dir, name), "utf8")) as MutantJson & { fileName: string };
      return outcome(event.fileName, event);
    }),
  );
}

/** The keys of the baseline's rows: `| \`file:line:column\` | mutator | \`replacement\` | reason |`. */
function baselineKeys(baseline: string): Set<string> {
  const keys = new Set<string>();
  for (const line of baseline.split("\n")) {
    const cells = line.split(/(?<!\\)\|/).map((cell) => cell.trim());
    const where = /^`(.+:\d+:\d+)`$/.exec(cells[1] ?? "");
    const replacement = /^`(.*)`$/.exec(cells[3] ?? "");
    if (where === null || replacement === null) continue;
    keys.add(`${where[1]} ${cells[2]} ${oneLine(replacement[1]!.replace(/\\\|/g, "|"))}`);
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

/** A baseline row for an unlisted survivor, its reason to be written. */
export function baselineRow(mutant: MutantOutcome): string {
  const replacement = mutant.replacement.replace(/\|/g, "\\|");
  return `| \`${mutant.file}:${mutant.line}:${mutant.column}\` | ${mutant.mutatorName} | \`${replacement}\` | ${mutant.status}: reason? |`;
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
