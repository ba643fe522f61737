/**
 * The Plots tab: orders per second, pending → final times, webhook attempts
 * per delivery and balances over time, drawn with uPlot. The first two come
 * from the live event stream (see live-series.ts); the other two reload the
 * deliveries and customers on each live event while the tab is open.
 */
import { useEffect, useState } from "preact/hooks";
import uPlot from "uplot";
import { call } from "./api.ts";
import type { BalanceHistory } from "./balance-history.ts";
import { Chart } from "./chart.tsx";
import { RATE_WINDOW_S, type LiveSeries } from "./live-series.ts";
import type { AdminCustomer, Delivery, Schedule } from "./types.ts";
import { useData } from "./use-data.ts";

const COLOURS = { placed: "#1d4ed8", success: "#15803d", failed: "#b91c1c", retry: "#d97706", other: "#6b7280" };
const PALETTE = ["#1d4ed8", "#15803d", "#b91c1c", "#7c3aed", "#d97706", "#0e7490", "#be185d", "#4d7c0f"];
/** Deliveries the timeline shows, the newest. */
const TIMELINE_DELIVERIES = 12;

/** Seconds the orders-per-second axis spans at least. */
const RATES_MIN_SPAN_S = 60;

function ratesData(series: LiveSeries, nowMs: number): uPlot.AlignedData {
  const rates = series.rates();
  const last = Math.floor(nowMs / 1000);
  // At least a minute of seconds, zeros included: uPlot stretches a time axis of one point over 1000 days.
  const first = Math.min(
    Math.max(last - RATE_WINDOW_S + 1, rates.keys().next().value ?? last),
    last - RATES_MIN_SPAN_S,
  );
  const xs: number[] = [];
  const columns: [number[], number[], number[]] = [[], [], []];
  for (let s = first; s <= last; s++) {
    const counts = rates.get(s);
    xs.push(s);
    columns[0].push(counts?.placed ?? 0);
    columns[1].push(counts?.success ?? 0);
    columns[2].push(counts?.failed ?? 0);
  }
  return [xs, ...columns];
}

/** Twenty bins of a round width covering the longest time seen. */
function histogramData(durations: readonly number[]): uPlot.AlignedData {
  if (durations.length === 0) return [[], []];
  const longest = Math.max(...durations, 0.001);
  const raw = longest / 20;
  const step = [0.1, 0.25, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600].find((w) => w >= raw) ?? Math.ceil(raw);
  const counts = new Array<number>(Math.floor(longest / step) + 1).fill(0);
  for (const d of durations) counts[Math.floor(d / step)]!++;
  // Each bar sits at the middle of its bin.
  return [counts.map((_, i) => (i + 0.5) * step), counts];
}

const RATES_OPTIONS: Omit<uPlot.Options, "width" | "height" | "title"> = {
  axes: [{}, { label: "orders / s" }],
  series: [
    {},
    { label: "placed", stroke: COLOURS.placed },
    { label: "final: success", stroke: COLOURS.success },
    { label: "final: failed", stroke: COLOURS.failed },
  ],
};

/** The histogram's x axis reaches past the longest time seen and the configured band's end. */
const histogramOptions = (bandEnd: number): Omit<uPlot.Options, "width" | "height" | "title"> => ({
  scales: { x: { time: false, range: (_u, _min, max) => [0, Math.max(max, bandEnd) * 1.15 || 0.001] } },
  axes: [{ label: "seconds pending" }, { label: "orders" }],
  series: [
    { label: "seconds" },
    {
      label: "orders",
      stroke: COLOURS.placed,
      fill: "#1d4ed833",
      paths: uPlot.paths.bars!({ align: 1, size: [1, 40] }),
    },
  ],
});

export function PlotsView(props: { tick: number; series: LiveSeries; balances: BalanceHistory }) {
  const now = Date.now();
  const durations = props.series.pendingToFinal();
  const [customers] = useData<{ customers: AdminCustomer[] }>("/_sim/customers", [props.tick]);
  if (customers !== undefined) props.balances.record(customers.customers, now);
  const balances = props.balances.table();
  const timeline = useDeliveryTimeline(props.tick);
  // The configured timing changes only with a restart: read once.
  const [schedule] = useData<Schedule>("/_sim/schedule", []);
  const configured = schedule?.configuredTiming;
  const band = configured === undefined ? undefined : ([configured.lowMs / 1000, configured.highMs / 1000] as const);
  return (
    <section aria-labelledby="plots-title" data-testid="plots">
      <h2 id="plots-title">Plots</h2>
      <p>
        Live from the moment this page opened: times on the axes are this browser's ({timeZone()}). Pending → final
        times are on the simulator's clock, so a virtual clock's jumps show as they were.
      </p>
      <div class="charts">
        <Chart
          title="Orders per second"
          testId="plot-rates"
          options={RATES_OPTIONS}
          data={ratesData(props.series, now)}
        />
        <Chart
          title={`Pending → final time (${durations.length} orders${medianText(durations)}${configured === undefined ? "" : `; configured ${configured.text}, shaded`})`}
          testId="plot-pending"
          options={histogramOptions(band?.[1] ?? 0)}
          data={histogramData(durations)}
          band={band}
        />
        <Chart
          title="Webhook attempts per delivery"
          testId="plot-webhooks"
          options={TIMELINE_OPTIONS}
          data={timeline}
        />
        <Chart
          title="Balance per customer (default wallet)"
          testId="plot-balances"
          options={balanceOptions(balances.customers.map(([id]) => id))}
          data={[balances.times, ...balances.customers.map(([, values]) => values)]}
        />
      </div>
    </section>
  );
}

const timeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

function medianText(durations: readonly number[]): string {
  if (durations.length === 0) return "";
  const sorted = [...durations].sort((a, b) => a - b);
  return `, median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(2)} s`;
}

function balanceOptions(customers: readonly string[]): Omit<uPlot.Options, "width" | "height" | "title"> {
  return {
    axes: [{}, { label: "balance" }],
    series: [
      {},
      ...customers.map((id, i) => ({
        label: id,
        stroke: PALETTE[i % PALETTE.length]!,
        paths: uPlot.paths.stepped!({ align: 1 }),
        spanGaps: true,
      })),
    ],
  };
}

const point = (colour: string) => ({
  stroke: colour,
  fill: colour,
  paths: uPlot.paths.points!(),
  points: { show: false, size: 9, width: 1 },
});

/** Attempts on one axis (seconds after the delivery was made), one row per delivery: a scatter (uPlot's mode 2). */
const TIMELINE_OPTIONS: Omit<uPlot.Options, "width" | "height" | "title"> = {
  mode: 2,
  // From just before 0 with room on the right: every first attempt is at 0, which alone gives uPlot no range,
  // and a dot drawn on the axis line itself would be half hidden.
  scales: {
    x: { time: false, range: (_u, _min, max) => [-0.03 * Math.max(1, max * 1.1), Math.max(1, max * 1.1)] },
    y: { range: (_u, min, max) => [Math.min(0, min) - 0.5, max + 0.5] },
  },
  axes: [{ label: "seconds after the delivery was made" }, { label: "newest on top" }],
  series: [
    {},
    { label: "delivered", ...point(COLOURS.success) },
    { label: "failed, retried", ...point(COLOURS.retry) },
    { label: "gave up / gone", ...point(COLOURS.failed) },
  ],
};

type Facet = [number[], number[]];

/** Loads the newest deliveries with their attempts, as the timeline's three facets. */
function useDeliveryTimeline(tick: number): uPlot.AlignedData {
  const [data, setData] = useState<Facet[]>([
    [[], []],
    [[], []],
    [[], []],
  ]);
  useEffect(() => {
    let current = true;
    void (async () => {
      const listing = await call<{ deliveries: (Delivery & { createdAt: string })[] }>(
        `/_sim/deliveries?limit=500`,
      ).catch(() => undefined);
      const newest = (listing?.deliveries ?? []).slice(-TIMELINE_DELIVERIES);
      const details = await Promise.all(
        newest.map((d) => call<Delivery & { createdAt: string }>(`/_sim/deliveries/${encodeURIComponent(d.id)}`)),
      ).catch(() => undefined);
      if (current && details !== undefined) setData(timelineFacets(details));
    })();
    return () => {
      current = false;
    };
  }, [tick]);
  return [null, ...data] as unknown as uPlot.AlignedData;
}

function timelineFacets(deliveries: readonly (Delivery & { createdAt: string })[]): Facet[] {
  const facets: Facet[] = [
    [[], []],
    [[], []],
    [[], []],
  ];
  deliveries.forEach((delivery, row) => {
    const attempts = delivery.attempts ?? [];
    const gaveUp = delivery.state === "failed" || delivery.state === "disabled";
    attempts.forEach((attempt, i) => {
      if (attempt.sentAt === null) return;
      const last = i === attempts.length - 1;
      const kind = attempt.outcome === "delivered" ? 0 : attempt.outcome === "gone" || (last && gaveUp) ? 2 : 1;
      facets[kind]![0].push((Date.parse(attempt.sentAt) - Date.parse(delivery.createdAt)) / 1000);
      facets[kind]![1].push(row);
    });
  });
  return facets;
}
