/**
 * handler-check's reports: the console summary, JSON for tools, JUnit XML
 * with one test case per rule, so CI shows which rule a handler broke, and
 * an HTML page; each tells a failure's timeline the same way.
 */
import {
  type ReportVerdict,
  reportEnvelope,
  type RunTimes,
  renderJsonReport,
  runTimesEndingNow,
} from "../report/json-report.ts";
import { escapeHtml, type Html, markup } from "../report/markup.ts";
import type { HandlerCheckReport, HandlerCheckFailure, TimelineEntry } from "./check-handler.ts";
import type { Forgery } from "./delivery-dialect.ts";
import {
  forgeryText,
  RULE_TEXT,
  RULES,
  describeBelief,
  describeMessage,
  describeStatus,
  type SentDelivery,
} from "./judge.ts";
import { toCurl } from "../harness/transcript.ts";
import { describeAnswer } from "./handler-client.ts";
import { copyable, renderReportPage } from "../report/html-page.ts";

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
function handlerCheckVerdict(report: HandlerCheckReport): ReportVerdict {
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

// A failure's timeline as people read it: each step (what was delivered,
// the handler's answer, what the app believed right after) with a curl line
// per delivery. The console, JUnit and HTML reports all tell it so.

/** What a step did, in words: `2 copies at once: msg_… (R-1: 20 Success)`. */
function describeStep(entry: TimelineEntry): string {
  const first = entry.deliveries[0];
  const what = first === undefined ? "" : ` ${describeMessage(first.message)}`;
  const count = entry.deliveries.length;
  switch (entry.kind) {
    case "deliver":
      return `deliver${what}`;
    case "again":
      return `the same message again:${what}`;
    case "concurrent":
      return `${count} copies at once:${what}`;
    case "answer_lost":
      return `deliver${what}; its answer is lost (the sender timed out)`;
    case "retry":
      return `retry after the lost answer:${what}`;
    case "burst":
      return `burst after downtime, ${count} queued deliveries at once: ${entry.deliveries.map((d) => describeMessage(d.message)).join(", ")}`;
    case "forged":
      return `forged, ${first?.forgery === undefined ? "" : forgeryText(first.forgery)}:${what}`;
    case "reconcile":
      return "ask the handler to reconcile its orders by lookup";
    default: {
      const unreachable: never = entry.kind;
      throw new Error(`unknown step ${String(unreachable)}`);
    }
  }
}

/** The handler's answers to a step, in order. */
function describeAnswers(entry: TimelineEntry): string {
  const answers = entry.answer === undefined ? entry.deliveries.map((d) => d.answer) : [entry.answer];
  return answers.map(describeAnswer).join("; ");
}

/** One curl line per distinct request of a step: copies carry the same request. */
function curlLines(handlerUrl: string, entry: TimelineEntry): string[] {
  const distinct = new Map(
    entry.deliveries.map((d) => [`${d.request.headers["webhook-signature"]}${d.request.body}`, d]),
  );
  return [...distinct.values()].map((delivery) => curlOf(handlerUrl, delivery));
}

function curlOf(handlerUrl: string, delivery: SentDelivery): string {
  const { headers, body } = delivery.request;
  return toCurl({ method: "POST", path: "", headers, body }, { baseUrl: handlerUrl, secrets: new Map() });
}

/** What the app believed right after a step, for the orders it touched. */
function describeBeliefs(entry: TimelineEntry): string {
  const believed = entry.believed.map(({ reference, believed: b }) => `${reference}: ${describeBelief(b)}`);
  return believed.length === 0 ? "(nothing read)" : believed.join("; ");
}

function describeTruth(failure: HandlerCheckFailure): string {
  return failure.orders.map((order) => `${order.reference} ${describeStatus(order.finalStatus)}`).join("; ");
}

/** The timeline, one numbered step per entry, indented by `indent`. */
function timelineLines(failure: HandlerCheckFailure, handlerUrl: string, indent: string): string[] {
  const deliveries = failure.timeline.reduce((count, entry) => count + entry.deliveries.length, 0);
  const lines = [
    `${indent}timeline: ${deliveries} deliver${deliveries === 1 ? "y" : "ies"} in ${failure.timeline.length} step${failure.timeline.length === 1 ? "" : "s"}`,
  ];
  failure.timeline.forEach((entry, index) => {
    lines.push(
      `${indent}${index + 1}. ${describeStep(entry)}`,
      `${indent}   answer: ${describeAnswers(entry)}`,
      `${indent}   believed after: ${describeBeliefs(entry)}`,
      ...curlLines(handlerUrl, entry).map((curl) => `${indent}   ${curl}`),
    );
  });
  lines.push(`${indent}the simulator's final statuses: ${describeTruth(failure)}`);
  return lines;
}

// The HTML report, in the contract report's page: the rules with their
// verdicts, and a failure's timeline (each step's deliveries, answers,
// belief after it, and copyable curl lines) with its replay.

function renderRules(report: HandlerCheckReport): Html {
  const rows = RULES.map((rule) => {
    const verdict =
      report.error !== undefined
        ? "skipped"
        : report.failure === undefined
          ? "passed"
          : report.failure.rule === rule
            ? "failed"
            : "skipped";
    const shown =
      verdict === "skipped" ? (report.error === undefined ? "not judged to the end" : "no verdict") : verdict;
    return markup`<tr><td><code>${rule}</code></td><td><span class="verdict ${verdict}">${shown}</span></td><td>${RULE_TEXT[rule]}</td></tr>`;
  });
  return markup`<section aria-labelledby="rules"><h2 id="rules">Rules</h2>
<table><thead><tr><th>rule</th><th>verdict</th><th>what it demands</th></tr></thead><tbody>${rows}</tbody></table>
</section>`;
}

function renderFailure(report: HandlerCheckReport, failure: HandlerCheckFailure, context: ReportContext): Html {
  const steps = failure.timeline.map(
    (entry) => markup`<li><p class="message">${describeStep(entry)}</p>
<dl class="facts"><dt>answer</dt><dd>${describeAnswers(entry)}</dd><dt>believed after</dt><dd>${describeBeliefs(entry)}</dd></dl>
${curlLines(report.handlerUrl, entry).map((curl) => copyable(curl, "this curl command"))}</li>`,
  );
  return markup`<section aria-labelledby="failure"><h2 id="failure">Failure</h2>
<div class="failure">
<p class="message">${failure.rule}: ${failure.message}</p>
<p>Shrunk ${failure.shrinks} times to ${failure.timeline.length} steps; path <code>${failure.path}</code>.</p>
<ol>${steps}</ol>
<p>The simulator's final statuses: ${describeTruth(failure)}</p>
<h3>Replay</h3>
${copyable(context.replay, "the replay command")}
</div>
</section>`;
}

/** The forgeries an unsigned or timestamp-less dialect cannot be tried with, said rather than passed silently. */
function notApplicableNote(report: HandlerCheckReport): string {
  const cases = Object.entries(report.notApplicable).map(
    ([forgery, why]) => `${forgeryText(forgery as Forgery)} (${why})`,
  );
  return cases.length === 0 ? "" : `; authenticity not applicable to ${cases.join(", ")}`;
}

const BADGE = { passed: "Passed", failed: "Failed", no_verdict: "No verdict" } as const;

export function formatHandlerCheckHtml(report: HandlerCheckReport, context: ReportContext): string {
  const { failure } = report;
  const verdict = handlerCheckVerdict(report) === "passed" ? "passed" : "failed";
  return renderReportPage({
    title: `Webhook handler report: ${verdict} — ${report.handlerUrl}`,
    verdict,
    badge: BADGE[handlerCheckVerdict(report)],
    heading: "Webhook handler report",
    facts: [
      ["Handler", report.handlerUrl],
      ["Dialect", `${report.dialect}${notApplicableNote(report)}`],
      ["Seed", report.seed],
      ["Runs", report.runs],
      ["Duration", `${(report.durationMs / 1000).toFixed(1)} s`],
    ],
    sections: [
      renderRules(report),
      failure === undefined ? "" : renderFailure(report, failure, context),
      report.error === undefined
        ? ""
        : markup`<section aria-labelledby="error"><h2 id="error">Setup error</h2><p>${report.error}</p></section>`,
    ],
    footer: `airtime-harness handler-check · seed ${report.seed} · ${report.runs} runs`,
  });
}
