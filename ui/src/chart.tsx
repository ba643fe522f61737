/**
 * One uPlot chart as a Preact component. The chart is made once per set of
 * series (a new customer adds a line, so the chart is made anew) and fed new
 * data in place otherwise. The number of points drawn is kept in
 * `data-points`, so a test (or a curious reader) can count what it shows,
 * and the x axis's span as drawn in `data-x-range` ("min,max").
 */
import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

export interface ChartProps {
  readonly title: string;
  readonly testId: string;
  /** Everything but the size and title: the series and axes. */
  readonly options: Omit<uPlot.Options, "width" | "height" | "title">;
  readonly data: uPlot.AlignedData;
  /**
   * A band to shade across the x axis, [from, to] in x units (a single line
   * when they are equal): the configured timing on the pending → final
   * histogram. Kept in `data-band` too, so a test reads what is drawn.
   */
  readonly band?: readonly [number, number] | undefined;
}

/** Shades the band behind the series, at least 2 px wide so a fixed timing shows as a line. */
function bandHook(band: readonly [number, number]): (u: uPlot) => void {
  return (u) => {
    const from = u.valToPos(band[0], "x", true);
    const to = u.valToPos(band[1], "x", true);
    u.ctx.save();
    u.ctx.fillStyle = "#f59e0b55";
    u.ctx.fillRect(from - 1, u.bbox.top, Math.max(2, to - from + 2), u.bbox.height);
    u.ctx.restore();
  };
}

/**
 * The y axis's width from its widest tick label (uPlot's autosize recipe), so
 * a long value such as 100,000 never runs under the axis's title.
 */
function fitTickLabels(u: uPlot, values: string[] | null, axisIndex: number, cycle: number): number {
  const axis = u.axes[axisIndex] as uPlot.Axis & { _size: number; font: [string, number]; gap: number };
  // uPlot sizes the axes again until they settle; a third pass keeps the last size.
  if (cycle > 1) return axis._size;
  u.ctx.font = axis.font[0];
  const widest = Math.max(0, ...(values ?? []).map((value) => u.ctx.measureText(String(value)).width));
  return Math.ceil((axis.ticks?.size ?? 0) + axis.gap + widest / devicePixelRatio);
}

/** Every y axis sized to its labels, unless its options size it already. */
function withFittedYAxes(axes: uPlot.Axis[] = [{}, {}]): uPlot.Axis[] {
  return axes.map((axis, i) => (i === 0 || axis.size !== undefined ? axis : { ...axis, size: fitTickLabels }));
}

const WIDTH = 560;
const HEIGHT = 220;

/** Points that carry something: a zero count or a gap is not one; a scatter (x null) counts its facets' points. */
function pointsIn(data: uPlot.AlignedData): number {
  const columns = data.slice(1) as unknown as readonly (readonly unknown[])[];
  if (data[0] === null)
    return columns.reduce((sum, facet) => sum + ((facet[0] as unknown[] | undefined)?.length ?? 0), 0);
  return columns.reduce((sum, ys) => sum + ys.filter((y) => y != null && y !== 0).length, 0);
}

/** Keeps the x scale uPlot settled on in the figure's `data-x-range`. */
function xRangeHook(figure: { current: HTMLElement | null }): (u: uPlot, key: string) => void {
  return (u, key) => {
    if (key !== "x" || figure.current === null) return;
    figure.current.dataset.xRange = `${u.scales.x?.min ?? ""},${u.scales.x?.max ?? ""}`;
  };
}

export function Chart(props: ChartProps) {
  const figure = useRef<HTMLElement>(null);
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<uPlot | undefined>(undefined);
  const band = props.band;
  const shape = `${props.options.series.map((s) => String(s.label)).join("|")}|${band?.join(",") ?? ""}`;
  useEffect(() => {
    if (box.current === null) return;
    const hooks: uPlot.Hooks.Arrays = { setScale: [xRangeHook(figure)] };
    if (band !== undefined) hooks.drawClear = [bandHook(band)];
    const options = { ...props.options, axes: withFittedYAxes(props.options.axes), hooks };
    const made = new uPlot({ ...options, width: WIDTH, height: HEIGHT }, props.data, box.current);
    chart.current = made;
    return () => {
      made.destroy();
      chart.current = undefined;
    };
  }, [shape]);
  useEffect(() => chart.current?.setData(props.data), [props.data]);
  // The title is the page's, not uPlot's: uPlot sets its title once, and this one carries live counts.
  return (
    <figure
      ref={figure}
      class="chart"
      data-testid={props.testId}
      data-points={pointsIn(props.data)}
      data-band={band?.join(",")}
    >
      <figcaption>{props.title}</figcaption>
      <div ref={box} />
    </figure>
  );
}
