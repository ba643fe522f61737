/**
 * Charts in the self-contained HTML reports, drawn by uPlot (the library the
 * dashboard draws with). A report opens from disk with no network, so uPlot's
 * script and style are inlined into the page, once, however many charts it
 * has; each chart's data travels in a JSON data block beside it, which no
 * browser runs, and one small script draws every chart on the page.
 *
 * A page without script still reads: every chart has a caption, and the
 * figures it plots are in the report's tables.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Html, markup } from "./markup.ts";

/**
 * A line per series over one shared x axis, as uPlot takes it. `ecdf`: each
 * line steps up at each sample. `gantt`: each series is one bar, its two
 * points (start and end) on the row its value names, `rows` labelling them.
 */
export interface LineChart {
  readonly kind: "ecdf" | "gantt";
  readonly xLabel: string;
  readonly yLabel: string;
  readonly x: readonly number[];
  readonly series: readonly {
    readonly label: string;
    readonly color: string;
    readonly y: readonly (number | null)[];
  }[];
  /** `gantt`: each row's label, top row first. */
  readonly rows?: readonly string[];
}

/** What a page needs in its head and before its end to draw charts. */
export interface ChartAssets {
  readonly style: string;
  readonly scripts: readonly string[];
}

// Draws every [data-chart] figure from its data block.
const DRAW_SCRIPT = `
(() => {
  const stepped = uPlot.paths.stepped({ align: 1 });
  // A y axis as wide as its widest tick label (uPlot's autosize recipe), so no label runs under the axis title.
  const fitTickLabels = (u, values, axisIndex, cycle) => {
    const axis = u.axes[axisIndex];
    if (cycle > 1) return axis._size;
    u.ctx.font = axis.font[0];
    const widest = Math.max(0, ...(values || []).map((value) => u.ctx.measureText(String(value)).width));
    return Math.ceil(axis.ticks.size + axis.gap + widest / devicePixelRatio);
  };
  for (const figure of document.querySelectorAll("figure[data-chart]")) {
    const spec = JSON.parse(figure.querySelector("script[type='application/json']").textContent);
    const box = figure.querySelector(".chart-box");
    const gantt = spec.kind === "gantt";
    const rows = spec.rows || [];
    const options = {
      width: Math.max(320, Math.min(760, box.clientWidth || 760)),
      height: gantt ? 100 + rows.length * 26 : 260,
      legend: { show: !gantt },
      scales: {
        x: { time: false },
        y: gantt ? { range: [-0.5, rows.length - 0.5], dir: -1 } : spec.kind === "ecdf" ? { range: [0, 1] } : {},
      },
      axes: [
        { label: spec.xLabel },
        gantt
          ? {
              label: spec.yLabel,
              size: fitTickLabels,
              splits: () => rows.map((_, i) => i),
              values: (u, splits) => splits.map((v) => rows[v] || ""),
            }
          : { label: spec.yLabel, size: fitTickLabels },
      ],
      series: [{ label: spec.xLabel }].concat(spec.series.map((s) => ({
        label: s.label,
        stroke: s.color,
        width: gantt ? 8 : 2,
        spanGaps: true,
        paths: spec.kind === "ecdf" ? stepped : undefined,
        points: { show: false },
      }))),
    };
    new uPlot(options, [spec.x].concat(spec.series.map((s) => s.y)), box);
    figure.dataset.drawn = String(spec.x.length);
  }
})();
`;

let assets: ChartAssets | undefined;

/** uPlot's own files, read once from the installed package. */
export function chartAssets(): ChartAssets {
  if (assets !== undefined) return assets;
  const require = createRequire(import.meta.url);
  const read = (file: string) => readFileSync(require.resolve(`uplot/dist/${file}`), "utf8");
  assets = { style: read("uPlot.min.css"), scripts: [read("uPlot.iife.min.js"), DRAW_SCRIPT] };
  return assets;
}

/** JSON that cannot end the `<script>` element it sits in. */
const dataBlock = (value: unknown): string => JSON.stringify(value).replace(/</g, "\\u003c");

/**
 * A figure for one chart: its caption, the box uPlot draws in, and its data.
 *
 * @example
 * chartFigure("timing", "Pending → final", { kind: "ecdf", xLabel: "ms", yLabel: "share", x: [1, 2], series: [...] });
 */
export function chartFigure(id: string, caption: string, chart: LineChart): Html {
  return markup`<figure class="chart" id="${id}" data-chart data-points="${chart.x.length}">
<div class="chart-box"></div>
<figcaption>${caption}</figcaption>
<script type="application/json">${new Html(dataBlock(chart))}</script>
</figure>`;
}

/**
 * The empirical distribution of each sample over the union of their values:
 * at each x, the share of the sample at or below it.
 *
 * @example
 * ecdf({ a: [1, 3], b: [2] }); // { x: [1, 2, 3], y: { a: [0.5, 0.5, 1], b: [0, 1, 1] } }
 */
export function ecdf(samples: Readonly<Record<string, readonly number[]>>): {
  x: number[];
  y: Record<string, number[]>;
} {
  const sorted = Object.fromEntries(
    Object.entries(samples).map(([name, values]) => [name, [...values].sort((p, q) => p - q)]),
  );
  const x = [...new Set(Object.values(sorted).flat())].sort((p, q) => p - q);
  const y: Record<string, number[]> = {};
  for (const [name, values] of Object.entries(sorted)) {
    let below = 0;
    y[name] = x.map((at) => {
      while (below < values.length && values[below]! <= at) below++;
      return values.length === 0 ? 0 : below / values.length;
    });
  }
  return { x, y };
}
