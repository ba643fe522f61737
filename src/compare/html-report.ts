/**
 * `compare --html FILE`: the comparison as one self-contained page in the
 * contract report's style (same shell, no external assets): the scores, a
 * table of every rule with both sides' figures and its verdict, both sides'
 * timing distributions and outcome mixes drawn side by side, then each
 * divergence with its evidence and the sequence that shows it, as curl lines
 * for both sides. Everything a target answered reaches the page escaped.
 */
import { copyable, renderReportPage } from "../report/html-page.ts";
import { chartAssets, chartFigure, ecdf } from "../report/charts.ts";
import { type Html, markup } from "../report/markup.ts";
import { describeEvidence, percent } from "./console-report.ts";
import { publicUrl } from "./json-report.ts";
import type { RuleResult } from "./rules.ts";
import type { CompareReport } from "./run-compare.ts";
import { divergentSequence, type SequenceStep } from "./sequence.ts";
import type { SideObservations } from "./observe.ts";

/**
 * @example
 * await writeFile("compare.html", formatCompareHtml(report));
 */
export function formatCompareHtml(report: CompareReport): string {
  const divergences = report.results.filter((result) => !result.agrees);
  const target = publicUrl(report.target);
  return renderReportPage({
    title: `Fidelity report: ${percent(report.scores.overall)} — ${target}`,
    verdict: divergences.length === 0 ? "passed" : "failed",
    badge: divergences.length === 0 ? "No divergence" : `${divergences.length} divergence(s)`,
    heading: "Fidelity report",
    facts: [
      ["Target", target],
      ["Simulator", `in-process, speaking ${report.provider}`],
      ["Seed", report.seed],
      ["Runs", report.runs],
    ],
    sections: [
      renderScores(report),
      renderRules(report.results),
      renderDistributions(report),
      divergences.length === 0
        ? ""
        : markup`<section aria-labelledby="divergences"><h2 id="divergences">Divergences</h2>${divergences.map((result, index) => renderDivergence(report, result, index))}</section>`,
    ],
    footer: `airtime-harness compare · seed ${report.seed} · ${report.runs} runs`,
    extras: chartAssets(),
  });
}

function renderScores(report: CompareReport): Html {
  const rows = Object.entries(report.scores)
    .filter(([operation]) => operation !== "overall")
    .map(([operation, share]) => markup`<tr><td>${operation}</td><td class="num">${percent(share)}</td></tr>\n`);
  return markup`<section aria-labelledby="scores"><h2 id="scores">Fidelity</h2>
<p>Overall: <strong>${percent(report.scores.overall)}</strong> of compared observations agree.</p>
<table>
<thead><tr><th scope="col">Operation</th><th scope="col">Score</th></tr></thead>
<tbody>
${rows}</tbody>
</table>
</section>`;
}

function renderRules(results: readonly RuleResult[]): Html {
  let divergent = 0;
  const rows = results.map((result) => {
    const rule = result.agrees
      ? markup`${result.rule}`
      : markup`<a href="#divergence-${divergent++}">${result.rule}</a>`;
    const verdict = result.agrees
      ? markup`<span class="verdict passed">agrees</span>`
      : markup`<span class="verdict failed">diverges</span>`;
    return markup`<tr><td>${rule}</td><td>${result.operation}</td><td>${result.severity}</td><td>${describeEvidence(result.target)}</td><td>${describeEvidence(result.simulator)}</td><td>${verdict}</td></tr>
`;
  });
  return markup`<section aria-labelledby="rules"><h2 id="rules">Rules</h2>
<table>
<thead><tr><th scope="col">Rule</th><th scope="col">Operation</th><th scope="col">Severity</th><th scope="col">Target</th><th scope="col">Simulator</th><th scope="col">Verdict</th></tr></thead>
<tbody>
${rows}</tbody>
</table>
</section>`;
}

function renderDivergence(report: CompareReport, result: RuleResult, index: number): Html {
  const id = `divergence-${index}`;
  const sequence = divergentSequence(report, result);
  const pValue = result.pValue > 0 && result.pValue < 1 ? `, p = ${result.pValue.toPrecision(2)}` : "";
  return markup`<article class="failure" id="${id}" aria-labelledby="${id}-title">
<h3 id="${id}-title">${result.rule}</h3>
<p>Operation <code>${result.operation}</code>, severity ${result.severity}; test: ${result.test}${pValue}.</p>
<dl class="facts">
<dt>Target</dt><dd>${describeEvidence(result.target)}</dd>
<dt>Simulator</dt><dd>${describeEvidence(result.simulator)}</dd>
</dl>
${sequence === undefined ? "" : renderSequence(sequence)}
</article>
`;
}

function renderSequence(sequence: readonly SequenceStep[]): Html {
  const steps = sequence.map(
    (step, index) => markup`<details${index === sequence.length - 1 ? " open" : ""}>
<summary>${index + 1}. ${step.kind}: target ${step.target.outcome} · simulator ${step.simulator.outcome}</summary>
<div class="body">
<h5>Target</h5>
${copyable(step.target.curl, "the target's curl command")}
<h5>Simulator</h5>
${copyable(step.simulator.curl, "the simulator's curl command")}
</div>
</details>
`,
  );
  return markup`<h4>Sequence</h4>
<p>The run's steps up to the first request the two sides answered differently (the simulator was a temporary instance; run its line against <code>airtime-harness serve</code>).</p>
<div data-steps>
${steps}</div>`;
}

// The page's pictures: both sides' pending → final times as two empirical
// distributions on one chart, and their outcome mixes side by side. The
// numbers behind them are the ones the rules judged (`finalTimesMs`,
// `finals`), so a picture never shows what the verdict did not see.

const TARGET_COLOR = "#b3261e";
const SIMULATOR_COLOR = "#0a58ca";

/**
 * @example
 * markup`<main>${renderDistributions(report)}</main>`;
 */
function renderDistributions(report: CompareReport): Html {
  return markup`<section aria-labelledby="distributions"><h2 id="distributions">Distributions</h2>
${renderTiming(report)}
${renderOutcomeMix(report)}
</section>`;
}

function renderTiming(report: CompareReport): Html {
  const target = report.targetSide.finalTimesMs;
  const simulator = report.simulator.finalTimesMs;
  if (target.length === 0 && simulator.length === 0) return markup`<p>No order became final on either side.</p>`;
  const { x, y } = ecdf({ target, simulator });
  return chartFigure(
    "timing-distribution",
    `Pending → final time, the share of orders final by each time: target (n=${target.length}) and simulator (n=${simulator.length}).`,
    {
      kind: "ecdf",
      xLabel: "ms from the send answer",
      yLabel: "share final",
      x,
      series: [
        { label: "target", color: TARGET_COLOR, y: y.target ?? [] },
        { label: "simulator", color: SIMULATOR_COLOR, y: y.simulator ?? [] },
      ],
    },
  );
}

/** Each final status's share of the orders that settled, on both sides, with a bar for each. */
function renderOutcomeMix(report: CompareReport): Html {
  const sides = [report.targetSide, report.simulator] as const;
  const statuses = [...new Set(sides.flatMap((side) => Object.keys(side.finals)))].sort();
  const cell = (side: SideObservations, status: string, name: string): Html => {
    const settled = Object.values(side.finals).reduce((sum, count) => sum + count, 0);
    const count = side.finals[status] ?? 0;
    const share = settled === 0 ? 0 : count / settled;
    return markup`<td class="num"><span class="share-bar ${name}" style="width:${(share * 6).toFixed(2)}em"></span> ${percent(share)} (${count})</td>`;
  };
  const rows = statuses.map(
    (status) =>
      markup`<tr><td>${status}</td>${cell(report.targetSide, status, "target")}${cell(report.simulator, status, "simulator")}</tr>\n`,
  );
  const unsettled = markup`<tr><td>still pending</td><td class="num">${report.targetSide.unsettled}</td><td class="num">${report.simulator.unsettled}</td></tr>`;
  return markup`<table data-testid="outcome-mix">
<caption>Outcome mix: each final status's share of the orders that settled.</caption>
<thead><tr><th scope="col">Final status</th><th scope="col">Target</th><th scope="col">Simulator</th></tr></thead>
<tbody>
${rows}${unsettled}
</tbody>
</table>`;
}
