/**
 * handler-check's HTML report, in the contract report's page: the rules
 * with their verdicts, and a failure's timeline (each step's deliveries,
 * answers, belief after it, and copyable curl lines) with its replay.
 */
import { copyable, renderReportPage } from "../report/html-page.ts";
import { type Html, markup } from "../report/markup.ts";
import type { HandlerCheckFailure, HandlerCheckReport } from "./check-handler.ts";
import type { Forgery } from "./delivery-dialect.ts";
import { forgeryText, RULE_TEXT, RULES } from "./judge.ts";
import { handlerCheckVerdict, type ReportContext } from "./report-formats.ts";
import { curlLines, describeAnswers, describeBeliefs, describeStep, describeTruth } from "./timeline-text.ts";

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
