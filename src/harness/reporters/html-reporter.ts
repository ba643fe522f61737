/**
 * The report as one self-contained HTML page: every check with its verdict
 * and coverage; for each failure its shrunk steps (request, response and a
 * curl line each) and their timeline, the diff between the two bodies that
 * disagreed, and the replay command; the run's target, profile, seed and timing. Everything the
 * target said is escaped (see src/report/markup.ts).
 */
import type { ExchangeRecord, FailureDiff } from "../failure-evidence.ts";
import { type CheckVerdict, type ContractReport, countVerdicts, type FailureStep } from "../report.ts";
import { type FoldedStep, foldSteps, otherRunsLine } from "./folded-steps.ts";
import { copyable, type Fact, renderReportPage } from "../../report/html-page.ts";
import { chartAssets, chartFigure, type LineChart } from "../../report/charts.ts";
import { type Html, inlineCode, markup } from "../../report/markup.ts";
import { diffJson } from "diff";

type FailedVerdict = Extract<CheckVerdict, { status: "failed" }>;

const VERDICT_TEXT = {
  passed: "passed",
  failed: "FAILED",
  skipped: "skipped",
  not_exercised: "not exercised",
} as const;

/**
 * @example
 * // what `airtime-harness contract --html report.html` writes
 * await writeFile("report.html", formatHtmlReport(await runContract({ runs: 50 })));
 */
export function formatHtmlReport(report: ContractReport): string {
  const failures = report.checks.filter((check): check is FailedVerdict => check.status === "failed");
  const verdict = report.ok ? "passed" : "failed";
  // uPlot comes with the page only when a failure has a timeline to draw.
  const timed = failures.some((check) =>
    check.failure.steps.some((step) => step.exchanges.some((e) => e.startedAt !== undefined)),
  );
  return renderReportPage({
    title: `Contract report: ${verdict} — ${report.target}`,
    verdict,
    badge: report.ok ? "Passed" : "Failed",
    heading: "Contract report",
    facts: factsOf(report),
    sections: [
      renderSummary(report),
      renderChecks(report),
      failures.length === 0
        ? ""
        : markup`<section aria-labelledby="failures"><h2 id="failures">Failures</h2>${failures.map(renderFailure)}</section>`,
      renderErrors(report),
      renderTiming(report),
    ],
    footer: `airtime-harness contract · seed ${report.seed} · ${report.runsPerProperty} runs per property`,
    ...(timed ? { extras: chartAssets() } : {}),
  });
}

function factsOf(report: ContractReport): readonly (Fact | undefined)[] {
  const runs =
    report.modelRuns === report.runsPerProperty
      ? `${report.runsPerProperty} per property`
      : `${report.runsPerProperty} per property, ${report.modelRuns} model runs`;
  return [
    ["Target", report.target],
    ["Profile", report.profile],
    ["Seed", report.seed],
    ["Runs", runs],
    ["Duration", seconds(report.durationMs)],
    report.budget === undefined
      ? undefined
      : ["Spent", `KES ${report.spent.toFixed(2)} of ${report.budget.toFixed(2)}`],
  ];
}

function renderSummary(report: ContractReport): Html {
  const counts = countVerdicts(report);
  const parts = [`${counts.passed} passed`, `${counts.failed} failed`, `${counts.skipped} skipped`];
  if (counts.notExercised > 0) {
    parts.push(
      `${counts.notExercised} not exercised${report.requireCoverage ? " (a failure under --require-coverage)" : ""}`,
    );
  }
  if (counts.noted > 0) {
    parts.push(
      `${counts.noted} with a coverage note${report.requireCoverage ? " (a failure under --require-coverage)" : ""}`,
    );
  }
  if (report.errors.length > 0) parts.push(`${report.errors.length} harness error(s)`);
  return markup`<section aria-labelledby="summary"><h2 id="summary">Summary</h2>
<p>${report.checks.length} checks: ${parts.join(", ")}.</p>
</section>`;
}

function renderChecks(report: ContractReport): Html {
  const rows = report.checks.map((check) => {
    const name =
      check.status === "failed"
        ? markup`<a href="#failure-${check.name}"><code>${check.name}</code></a>`
        : markup`<code>${check.name}</code>`;
    return markup`<tr><td>${name}</td><td><span class="verdict ${check.status}">${VERDICT_TEXT[check.status]}</span></td><td>${inlineCode(detailOf(check))}</td><td>${inlineCode(check.description)}</td></tr>
`;
  });
  return markup`<section aria-labelledby="checks"><h2 id="checks">Checks</h2>
<table>
<thead><tr><th scope="col">Check</th><th scope="col">Verdict</th><th scope="col">Coverage or reason</th><th scope="col">What it promises</th></tr></thead>
<tbody>
${rows}</tbody>
</table>
</section>`;
}

function detailOf(check: CheckVerdict): string {
  switch (check.status) {
    case "passed":
      return [check.coverage.summary, ...(check.notes ?? []).map((note) => `note: ${note}`)].join("; ");
    case "failed":
      return check.failure.message;
    case "skipped":
    case "not_exercised":
      return check.reason;
    default:
      return assertNever(check);
  }
}

function renderFailure(check: FailedVerdict): Html {
  const { failure } = check;
  const count = `${failure.steps.length} step${failure.steps.length === 1 ? "" : "s"}`;
  const how = failure.observed
    ? `Observed, not reproduced: the replay passed (a random outcome?), so these are the ${count} as they happened, not shrunk.`
    : `Shrunk to ${count} in ${seconds(failure.shrinkMs)}; ${failure.reproduced ? "replay confirmed." : "the replay did NOT reproduce it (flaky target?)."}`;
  const id = `failure-${check.name}`;
  return markup`<article class="failure" id="${id}" aria-labelledby="${id}-title">
<h3 id="${id}-title"><code>${check.name}</code> failed</h3>
<p>${inlineCode(check.description)}</p>
<p class="message">${inlineCode(failure.message)}</p>
<p>Property <code>${failure.property}</code>. ${how}</p>
${
  failure.diff === undefined
    ? ""
    : markup`<h4>Expected against actual</h4>
${renderJsonDiff(failure.diff)}`
}
${renderTimeline(id, failure.steps)}
<h4 id="${id}-steps">Steps</h4>
<div data-steps>
${foldSteps(failure.steps).map(renderStep)}</div>
<h4>Replay</h4>
${copyable(failure.replay, "the replay command")}
</article>
`;
}

function renderTimeline(id: string, steps: readonly FailureStep[]): Html | string {
  const chart = failureTimeline(`${id}-timeline`, steps);
  return chart === undefined
    ? ""
    : markup`<h4>Timeline</h4>
${chart}`;
}

/**
 * A shrunk failure's requests on one time axis: a bar per request from when
 * it was sent to when its answer came (or its error), a row each, labelled
 * with its step, method, path and outcome. It shows what a list of steps
 * hides: which request was slow, which ones overlapped, and how long the
 * harness waited between them.
 */

/** More bars than this would not read as a picture; the steps below the chart still list every request. */
const MAX_BARS = 60;
const STEP_COLORS = ["#0a58ca", "#6f42c1"] as const;
const ERROR_COLOR = "#b3261e";

interface TimedRequest {
  readonly step: number;
  readonly exchange: ExchangeRecord & { readonly startedAt: number; readonly durationMs: number };
}

function timedRequests(steps: readonly FailureStep[]): TimedRequest[] {
  return steps.flatMap((step, index) =>
    step.exchanges.flatMap((exchange) =>
      exchange.startedAt === undefined || exchange.durationMs === undefined
        ? []
        : [{ step: index, exchange: exchange as TimedRequest["exchange"] }],
    ),
  );
}

function rowLabel({ step, exchange }: TimedRequest): string {
  const { request, response } = exchange;
  const path = request.path.length > 36 ? `${request.path.slice(0, 35)}…` : request.path;
  const outcome = response.kind === "response" ? response.status : response.code;
  return `${step + 1}. ${request.method} ${path} → ${outcome}, ${exchange.durationMs} ms`;
}

/**
 * The failure's timeline as a chart, or nothing when its requests carry no
 * times (a report assembled by hand).
 *
 * @example
 * markup`<h4>Timeline</h4>${failureTimeline("failure-x-timeline", failure.steps)}`;
 */
function failureTimeline(id: string, steps: readonly FailureStep[]): Html | undefined {
  const all = timedRequests(steps);
  if (all.length === 0) return undefined;
  const shown = all.slice(0, MAX_BARS);
  const origin = Math.min(...shown.map((r) => r.exchange.startedAt));
  // A bar needs two distinct points: an answer within the millisecond still shows.
  const spans = shown.map((r) => {
    const start = r.exchange.startedAt - origin;
    return [start, start + Math.max(1, r.exchange.durationMs)] as const;
  });
  const x = [...new Set(spans.flat())].sort((a, b) => a - b);
  const series = shown.map((request, row) => {
    const [start, end] = spans[row]!;
    const failed = request.exchange.response.kind !== "response" || request.exchange.response.status >= 500;
    return {
      label: rowLabel(request),
      color: failed ? ERROR_COLOR : STEP_COLORS[request.step % STEP_COLORS.length]!,
      y: x.map((at) => (at === start || at === end ? row : null)),
    };
  });
  const chart: LineChart = {
    kind: "gantt",
    xLabel: "ms since the first request",
    yLabel: "request",
    x,
    series,
    rows: series.map((s) => s.label),
  };
  const more = all.length > shown.length ? ` The first ${shown.length} of ${all.length} requests are drawn.` : "";
  return chartFigure(
    id,
    `Each request from sent to answered, in the order sent; red: no answer or a 5xx.${more}`,
    chart,
  );
}

function renderStep(step: FoldedStep, index: number): Html {
  const left = otherRunsLine(step);
  const body =
    step.requests.length === 0 && left === undefined
      ? markup`<p>No request.</p>`
      : step.requests.map(
          ({ curl, exchange, times }) => markup`<div class="exchange">
${exchange === undefined ? "" : renderExchange(exchange)}
${times > 1 ? markup`<p class="times">Sent ${times} times; the last answer is shown.</p>` : ""}
${curl === undefined ? "" : copyable(curl, "this curl command")}
</div>`,
        );
  return markup`<details open>
<summary>${index + 1}. ${step.label}</summary>
<div class="body">${body}${left === undefined ? "" : markup`<p class="left-out">${left}</p>`}</div>
</details>
`;
}

function renderExchange(exchange: ExchangeRecord): Html {
  const { request, response } = exchange;
  const requestText = [
    `${request.method} ${request.path}`,
    ...headerLines(request.headers),
    ...(request.body === undefined ? [] : ["", request.body]),
  ].join("\n");
  const responseText =
    response.kind === "response"
      ? [
          `HTTP ${response.status}`,
          ...headerLines(response.headers),
          ...(response.body === "" ? [] : ["", response.body]),
        ].join("\n")
      : `no response: ${response.code} ${response.message}`;
  const outcome = response.kind === "response" ? response.status : response.code;
  const fault = request.fault === undefined ? "" : markup` <span class="fault">(fault: ${request.fault})</span>`;
  return markup`<p class="status-line">${request.method} ${request.path} → ${outcome}${fault}</p>
<details><summary>Request and response</summary><div class="body">
<h5>Request</h5><pre tabindex="0">${requestText}</pre>
<h5>Response</h5><pre tabindex="0">${responseText}</pre>
</div></details>`;
}

function headerLines(headers: Readonly<Record<string, string>>): string[] {
  return Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
}

function renderErrors(report: ContractReport): Html | string {
  if (report.errors.length === 0) return "";
  return markup`<section aria-labelledby="errors"><h2 id="errors">Harness errors</h2>
<p>Problems of the harness or the connection, not verdicts on the contract.</p>
<ul>${report.errors.map((error) => markup`<li><code>${error}</code></li>`)}</ul>
</section>`;
}

function renderTiming(report: ContractReport): Html {
  const phases = Object.entries(report.timings).sort(([, a], [, b]) => b - a);
  const properties = report.properties.map(
    (p) =>
      markup`<tr><td><code>${p.name}</code></td><td class="num">${p.runs}</td><td>${p.status}${p.reason === undefined ? "" : `: ${p.reason}`}</td><td>${p.summary}</td></tr>
`,
  );
  return markup`<section aria-labelledby="timing"><h2 id="timing">Timing</h2>
<p>${seconds(report.durationMs)} in all; phases overlap (settling happens inside the search).</p>
<table>
<thead><tr><th scope="col">Phase</th><th scope="col">Wall time</th></tr></thead>
<tbody>${phases.map(([phase, ms]) => markup`<tr><td>${phase}</td><td class="num">${seconds(ms)}</td></tr>`)}</tbody>
</table>
<h3>Properties</h3>
<table>
<thead><tr><th scope="col">Property</th><th scope="col">Runs</th><th scope="col">Outcome</th><th scope="col">What it does</th></tr></thead>
<tbody>
${properties}</tbody>
</table>
</section>`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function assertNever(value: never): never {
  throw new Error(`unexpected verdict ${JSON.stringify(value)}`);
}

/**
 * Expected against actual as a line diff of their pretty-printed JSON (keys
 * sorted, so only real differences show), rendered as `<del>`/`<ins>` lines.
 */
function renderJsonDiff(diff: FailureDiff): Html {
  const changes = diffJson(asDiffable(diff.expected), asDiffable(diff.actual));
  const lines = changes.flatMap((change) =>
    change.value
      .replace(/\n$/, "")
      .split("\n")
      .map((line) =>
        change.added
          ? markup`<ins class="diff-line"><span class="diff-mark" aria-hidden="true">+</span>${line}</ins>`
          : change.removed
            ? markup`<del class="diff-line"><span class="diff-mark" aria-hidden="true">−</span>${line}</del>`
            : markup`<span class="diff-line"><span class="diff-mark" aria-hidden="true"> </span>${line}</span>`,
      ),
  );
  return markup`<figure class="diff">
  <figcaption>
    <span class="legend-remove">− expected: ${diff.expectedLabel}</span>
    <span class="legend-add">+ actual: ${diff.actualLabel}</span>
  </figcaption>
  <pre tabindex="0">${lines}</pre>
</figure>`;
}

/** `diffJson` takes objects, or text it treats as already serialized. */
function asDiffable(value: unknown): string | object {
  if (typeof value === "object" && value !== null) return value;
  return `${JSON.stringify(value, null, 2) ?? "(nothing)"}\n`;
}
