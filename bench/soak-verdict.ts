/**
 * The soak's goals as pure functions of what it measured, so they can be
 * tested apart from a ten-minute run.
 */

/** One slice of the soak: one load run and the server's memory meanwhile (sampled every second). */
export interface Slice {
  readonly rps: number;
  readonly p99Ms: number;
  readonly problems: number;
  /** The highest RSS sampled: what the bound is checked on. */
  readonly peakRssMb: number;
  readonly medianRssMb: number;
  readonly medianHeapUsedMb: number;
  /** The JS heap used just after the slice's last full collection (or the latest before it): what is live. */
  readonly liveHeapMb: number;
  /** The median of RSS minus the JS heap's size: native memory, buffers, code. */
  readonly offHeapMb: number;
}

export interface Verdict {
  readonly met: boolean;
  readonly text: string;
}

/** The RSS bound the default order cap is chosen for (docs/simulator.md, retention). */
export const RSS_BOUND_MB = 1_536;
const P99_GROWTH_BOUND = 1.5;
const PLATEAU_SPREAD = 0.1;

/** The middle value (the mean of the two middle ones for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Whether the last three slices' values lie within 10 % of each other. */
function level(slices: readonly Slice[], value: (slice: Slice) => number): boolean {
  const last = slices.slice(-3).map(value);
  return last.length === 3 && (Math.max(...last) - Math.min(...last)) / Math.max(...last) <= PLATEAU_SPREAD;
}

/**
 * True when memory stopped growing: what is live on the JS heap, and what
 * the process holds outside it, each level over the last three slices.
 * RSS itself is not judged: it is those two plus the garbage V8 lets pile
 * up between full collections, which swings by a hundred megabytes with the
 * collector's timing alone (the peak bound keeps that in check).
 */
export function memoryPlateaus(slices: readonly Slice[]): boolean {
  return level(slices, (slice) => slice.liveHeapMb) && level(slices, (slice) => slice.offHeapMb);
}

export function soakVerdicts(
  slices: readonly Slice[],
  replay: { readonly replays: number; readonly badReplays: number },
): Verdict[] {
  const first = slices[0];
  const last = slices.at(-1);
  if (first === undefined || last === undefined) return [{ met: false, text: "no slice ran" }];
  const peak = Math.max(...slices.map((slice) => slice.peakRssMb));
  const growth = last.p99Ms / first.p99Ms;
  return [
    {
      met: memoryPlateaus(slices),
      text: "memory plateaus (the last three slices' live heap, and RSS outside the heap, each within 10 %)",
    },
    { met: peak <= RSS_BOUND_MB, text: `RSS peak ${peak.toFixed(0)} MB, bound ${RSS_BOUND_MB} MB` },
    {
      met: growth <= P99_GROWTH_BOUND,
      text:
        `p99 last slice ${last.p99Ms.toFixed(1)} ms vs first ${first.p99Ms.toFixed(1)} ms: ` +
        `${growth.toFixed(2)}× (bound ${P99_GROWTH_BOUND}×)`,
    },
    {
      met: replay.badReplays === 0 && replay.replays > 0,
      text: `${replay.replays} replays inside retention, ${replay.badReplays} not answered as one replayed order`,
    },
  ];
}
