/**
 * handler-check's reports: the console summary, JSON for tools, and JUnit
 * XML with one test case per rule, so CI shows which rule a handler broke.
 */
import {
  type ReportVerdict,
  reportEnvelope,
  type RunTimes,
  renderJsonReport,
  runTimesEndingNow,
} from "../report/json-report.ts";
import { escapeHtml } from "../report/markup.ts";
import type { HandlerCheckReport } from "./check-handler.ts";
import type { Forgery } from "./delivery-dialect.ts";
import { forgeryText, RULE_TEXT, RULES } from "./judge.ts";
import { timelineLines } from "./timeline-text.ts";

const JSON_REPORT_VERSION = 1;

export interface ReportContext {
  /** The command that replays the failure (`--seed` and `--path` included). */
  readonly replay: string;
}

export function formatHandlerCheckConsole(report: HandlerCheckReport, context: ReportContext): string {
  const lines = [
    `airtime-harness handler-check — ${report.handlerUrl}`,
    `seed ${report.seed}, ${report.runs} runs, ${(report.durationMs / 1000).toFixed(1)} s; deliveries in the ${report.dialect} dialect`,
    "",
  ];
  if (report.error !== undefined) {
    lines.push(`error: ${report.error}`, "no verdict: fix the setup and run again");
    return lines.join("\n");
  }
  const { failure } = report;
  for (const rule of RULES) {
    const mark = failure === undefined ? "✓" : failure.rule === rule ? "✗" : "-";
    lines.push(`  ${mark} ${rule.padEnd(15)}  ${RULE_TEXT[rule]}`);
    if (rule === "authenticity") lines.push(...notApplicableLines(report));
  }
  if (failure === undefined) {
    lines.push("", `ok: the handler kept every rule over ${report.runs} generated sequences`);
    return lines.join("\n");
  }
  lines.push(
    "",
    `✗ ${failure.rule}: ${failure.message}`,
    `  shrunk ${failure.shrinks} time${failure.shrinks === 1 ? "" : "s"}; path ${failure.path}`,
    ...timelineLines(failure, report.handlerUrl, "  "),
    `  replay: ${context.replay}`,
    "",
    "(rules marked - were not judged to the end: the run stops at the first failure)",
  );
  return lines.join("\n");
}

/** Forgeries the dialect cannot be caught out by: said, so an unsigned dialect never passes silently. */
function notApplicableLines(report: HandlerCheckReport): string[] {
  return Object.entries(report.notApplicable).map(
    ([forgery, why]) => `      not applicable: ${forgeryText(forgery as Forgery)}, as ${why}`,
  );
}

/** The verdict every report of a run states: a setup error judged nothing. */
export function handlerCheckVerdict(report: HandlerCheckReport): ReportVerdict {
  if (report.error !== undefined) return "no_verdict";
  return report.failure === undefined ? "passed" : "failed";
}

export function formatHandlerCheckJson(
  report: HandlerCheckReport,
  context: ReportContext,
  times: RunTimes = runTimesEndingNow(report.durationMs),
): string {
  const replay = report.failure === undefined ? {} : { replay: context.replay };
  const verdict = handlerCheckVerdict(report);
  const envelope = reportEnvelope({ command: "handler-check", version: JSON_REPORT_VERSION, verdict, times });
  return renderJsonReport(envelope, { ok: verdict === "passed", ...report, ...replay });
}

/** The HTML reports' escaping: its entities and its dropped control characters are valid XML too. */
const xml = escapeHtml;

export function formatHandlerCheckJUnit(report: HandlerCheckReport, context: ReportContext): string {
  const { failure } = report;
  const seconds = (report.durationMs / 1000).toFixed(3);
  const cases = RULES.map((rule) => {
    const open = `    <testcase classname="airtime-harness.handler-check" name="${rule}" time="0">`;
    if (report.error !== undefined) return `${open}\n      <error message="${xml(report.error)}"/>\n    </testcase>`;
    const unsigned = rule === "authenticity" ? report.notApplicable.bad_signature : undefined;
    if (unsigned !== undefined && failure?.rule !== rule) {
      // Nothing was forged, so nothing was judged: skipped, never a silent pass.
      return `${open}\n      <skipped message="${xml(`not applicable: ${unsigned}`)}"/>\n    </testcase>`;
    }
    if (failure === undefined) return `${open}</testcase>`;
    if (failure.rule !== rule) {
      return `${open}\n      <skipped message="not judged to the end: the run stopped at the first failure"/>\n    </testcase>`;
    }
    const body = [
      failure.message,
      "",
      ...timelineLines(failure, report.handlerUrl, ""),
      "",
      `replay: ${context.replay}`,
    ];
    return `${open}\n      <failure message="${xml(failure.message)}" type="${rule}">${xml(body.join("\n"))}</failure>\n    </testcase>`;
  });
  const failed = failure === undefined ? 0 : 1;
  const errors = report.error === undefined ? 0 : RULES.length;
  const unjudged = failure === undefined ? 0 : RULES.length - 1;
  const skipped = Math.max(unjudged, report.notApplicable.bad_signature === undefined ? 0 : 1);
  const counts = `tests="${RULES.length}" failures="${failed}" errors="${errors}" skipped="${skipped}" time="${seconds}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="airtime-harness handler-check" ${counts}>`,
    `  <testsuite name="handler-check: ${xml(report.handlerUrl)}" ${counts}>`,
    `    <properties><property name="seed" value="${report.seed}"/><property name="runs" value="${report.runs}"/></properties>`,
    ...cases,
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}
