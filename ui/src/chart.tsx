/**
 * One uPlot chart as a Preact component. The chart is made once per set of
 * series (a new customer adds a line, so the chart is made anew) and fed new
 * data in place otherwise. The number of points drawn is kept in
 * `data-points`, so a test (or a curious reader) can count what it shows.
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

export function Chart(props: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<uPlot | undefined>(undefined);
  const shape = props.options.series.map((s) => String(s.label)).join("|");
  useEffect(() => {
    if (box.current === null) return;
    const made = new uPlot({ ...props.options, width: WIDTH, height: HEIGHT }, props.data, box.current);
    chart.current = made;
    return () => {
      made.destroy();
      chart.current = undefined;
    };
  }, [shape]);
  useEffect(() => chart.current?.setData(props.data), [props.data]);
  // The title is the page's, not uPlot's: uPlot sets its title once, and this one carries live counts.
  return (
    <figure class="chart" data-testid={props.testId} data-points={pointsIn(props.data)}>
      <figcaption>{props.title}</figcaption>
      <div ref={box} />
    </figure>
  );
}
