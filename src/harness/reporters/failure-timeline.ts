/**
 * A shrunk failure's requests on one time axis: a bar per request from when
 * it was sent to when its answer came (or its error), a row each, labelled
 * with its step, method, path and outcome. It shows what a list of steps
 * hides: which request was slow, which ones overlapped, and how long the
 * harness waited between them.
 */
import type { ExchangeRecord } from "../failure-evidence.ts";
import type { FailureStep } from "../report.ts";
import { chartFigure, type LineChart } from "../../report/charts.ts";
import type { Html } from "../../report/markup.ts";

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
export function failureTimeline(id: string, steps: readonly FailureStep[]): Html | undefined {
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
