/**
 * The soak's goals as pure functions of what it measured, so they can be
 * tested apart from a ten-minute run.
 */

/** One slice of the soak: one wrk run and the server's RSS meanwhile. */
export interface Slice {
  readonly rps: number;
  readonly p99Ms: number;
  readonly problems: number;
  readonly peakRssMb: number;
}

export interface Verdict {
  readonly met: boolean;
  readonly text: string;
}

/** The RSS bound the default order cap is chosen for (docs/simulator.md, retention). */
export const RSS_BOUND_MB = 1_536;
const P99_GROWTH_BOUND = 1.5;
const PLATEAU_SPREAD = 0.1;

/** True when the last three slices' RSS peaks lie within 10 % of each other: memory stopped growing. */
export function peaksPlateau(slices: readonly Slice[]): boolean {
  const last = slices.slice(-3).map((slice) => slice.peakRssMb);
  if (last.length < 3) return false;
  return (Math.max(...last) - Math.min(...last)) / Math.max(...last) <= PLATEAU_SPREAD;
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
    { met: peaksPlateau(slices), text: "RSS plateaus (the last three slices' peaks within 10 %)" },
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
