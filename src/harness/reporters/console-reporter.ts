/**
 * The console summary: the run's errors first (a cause read after a table
 * is a cause missed), one line per check (passed / failed / skipped with the
 * reason), what would exercise the checks that were not, then every failure
 * with its shrunk steps, a curl command per request and the exact replay
 * command.
 */
import { type Paint, paintVerdict, PLAIN } from "../../report/console.ts";
import { CHECK_NAMES } from "../checks.ts";
import { type ContractReport, countVerdicts, isNoted } from "../report.ts";
import { foldSteps, otherRunsLine } from "./folded-steps.ts";

const MARK = { passed: "✓", failed: "✗", skipped: "-", not_exercised: "?" } as const;

export interface ConsoleReportOptions {
  /** Adds the timing breakdown (where the wall time went). */
  readonly verbose?: boolean;
  /** Colours for the verdict lines; plain text without it. */
  readonly paint?: Paint;
}

export function formatConsoleReport(
  report: ContractReport,
  { verbose = false, paint = PLAIN }: ConsoleReportOptions = {},
): string {
  const width = Math.max(...CHECK_NAMES.map((name) => name.length));
  const lines: string[] = [
    `airtime-harness contract — ${report.target}`,
    `seed ${report.seed}, ${report.runsPerProperty} runs per property${report.modelRuns === report.runsPerProperty ? "" : ` (${report.modelRuns} model runs, each audited to its orders' finals)`}, ${(report.durationMs / 1000).toFixed(1)} s` +
      (report.budget === undefined ? "" : `, spent KES ${report.spent.toFixed(2)} of ${report.budget.toFixed(2)}`),
    "",
  ];
  for (const error of report.errors) lines.push(`error: ${error}`);
  if (report.errors.length > 0) lines.push("");
  for (const check of report.checks) {
    const detail =
      check.status === "skipped"
        ? `skipped: ${check.reason}`
        : check.status === "failed"
          ? "FAILED"
          : check.status === "not_exercised"
            ? `${report.requireCoverage ? "FAILED (--require-coverage): " : ""}not exercised: ${check.reason}`
            : isNoted(check)
              ? `${report.requireCoverage ? "FAILED (--require-coverage): " : ""}passed (${check.coverage.summary}), but ${(check.notes ?? []).join("; ")}`
              : `passed (${check.coverage.summary})`;
    const colour = { passed: paint.green, failed: paint.red, not_exercised: paint.yellow, skipped: paint.dim }[
      check.status
    ];
    lines.push(`  ${colour(`${MARK[check.status]} ${check.name.padEnd(width)}`)}  ${colour(detail)}`);
  }
  lines.push(...coverageHint(report));
  for (const check of report.checks) {
    if (check.status !== "failed") continue;
    const { failure } = check;
    lines.push(
      "",
      `✗ ${failure.check} — ${check.description}`,
      `  ${failure.message}`,
      failure.observed
        ? `  property: ${failure.property}; OBSERVED, NOT REPRODUCED: the replay passed (a random outcome?), so these are the ${failure.steps.length} steps as they happened, not shrunk`
        : `  property: ${failure.property}; shrunk to ${failure.steps.length} step${failure.steps.length === 1 ? "" : "s"} in ${(failure.shrinkMs / 1000).toFixed(1)} s${failure.reproduced ? "; replay confirmed" : "; the replay did NOT reproduce it (flaky target?)"}`,
    );
    foldSteps(failure.steps).forEach((step, index) => {
      lines.push(`  ${index + 1}. ${step.label}`);
      for (const { curl, times } of step.requests) {
        if (curl !== undefined) lines.push(`       ${curl}${times > 1 ? `   # sent ${times} times` : ""}`);
      }
      const left = otherRunsLine(step);
      if (left !== undefined) lines.push(`       ${left}`);
    });
    lines.push(`  replay: ${failure.replay}`);
  }
  if (verbose) lines.push("", ...formatTimings(report));
  const counts = countVerdicts(report);
  const summary =
    `${report.checks.length} checks: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped` +
    (counts.notExercised > 0 ? `, ${counts.notExercised} not exercised` : "") +
    (counts.noted > 0 ? `, ${counts.noted} with a coverage note` : "") +
    (report.errors.length > 0 ? `, ${report.errors.length} error${report.errors.length === 1 ? "" : "s"}` : "");
  lines.push("", paintVerdict(report.ok ? "passed" : "failed", summary, paint));
  return lines.join("\n");
}

/**
 * What would exercise the checks no case reached, or reach the classes a
 * check never met: more runs, the final statuses the target never produced
 * (on our simulator, its own ways), and --require-coverage to make it count.
 */
function coverageHint(report: ContractReport): string[] {
  const short = report.checks.filter((check) => check.status === "not_exercised" || isNoted(check));
  if (short.length === 0) return [];
  const missing = [
    ...new Set(
      short.flatMap((check) =>
        check.status === "failed" || check.status === "skipped" ? [] : (check.coverage?.missing ?? []),
      ),
    ),
  ];
  const classes = missing.length > 0 ? missing.join(" and ") : "failed and reversed";
  const produce = report.simulator
    ? [
        `have the simulator produce ${classes} orders: \`serve --failure-rate 0.2\`, the magic test accounts of docs/scenarios.md (0700000001 fails, 0700000004 is reversed), or its admin powers (--admin-url, --admin-token) that force outcomes`,
      ]
    : [`have the target produce ${classes} orders (its test numbers, or a sandbox setting)`];
  const ways = [
    `raise --runs (now ${report.runsPerProperty}) so more cases come up`,
    ...produce,
    ...(report.requireCoverage ? [] : ["give --require-coverage to fail the run until they are covered"]),
  ];
  return [
    "",
    `hint: ${short.map((check) => check.name).join(", ")} not fully covered; to cover them:`,
    ...ways.map((way) => `  - ${way}`),
  ];
}

/** Where the time went: each phase's wall time (phases overlap: settling happens inside the search). */
function formatTimings(report: ContractReport): string[] {
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const phases = Object.entries(report.timings).sort(([, a], [, b]) => b - a);
  return [
    `timing: ${seconds(report.durationMs)} in all`,
    ...phases.map(([phase, ms]) => `  ${phase.padEnd(24)} ${seconds(ms).padStart(8)}`),
  ];
}
