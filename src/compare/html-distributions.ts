/**
 * The compare page's pictures: both sides' pending → final times as two
 * empirical distributions on one chart, and their outcome mixes side by side.
 * The numbers behind them are the ones the rules judged (`finalTimesMs`,
 * `finals`), so a picture never shows what the verdict did not see.
 */
import { chartFigure, ecdf } from "../report/charts.ts";
import { type Html, markup } from "../report/markup.ts";
import { percent } from "./console-report.ts";
import type { SideObservations } from "./observe.ts";
import type { CompareReport } from "./run-compare.ts";

const TARGET_COLOR = "#b3261e";
const SIMULATOR_COLOR = "#0a58ca";

/**
 * @example
 * markup`<main>${renderDistributions(report)}</main>`;
 */
export function renderDistributions(report: CompareReport): Html {
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
