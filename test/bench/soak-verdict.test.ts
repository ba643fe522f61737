// The soak's goals judged from its measurements: a run whose memory keeps
// growing, whose tail latency degrades or whose replay made a second order fails.
import { expect, test } from "vitest";
import { median, memoryPlateaus, type Slice, soakVerdicts } from "../../bench/soak-verdict.ts";

interface Memory {
  live?: number;
  offHeap?: number;
  rss?: number;
  peak?: number;
  p99?: number;
}

/** A slice whose live heap and memory outside it are given; RSS adds garbage to them. */
const slice = ({ live = 100, offHeap = 90, rss = live + offHeap + 50, peak = rss, p99 = 10 }: Memory): Slice => ({
  rps: 1_000,
  p99Ms: p99,
  problems: 0,
  peakRssMb: peak,
  medianRssMb: rss,
  medianHeapUsedMb: rss - offHeap,
  liveHeapMb: live,
  offHeapMb: offHeap,
});

test("the median of samples is the middle one, or the mean of the two middle ones", () => {
  expect(median([5, 1, 3])).toBe(3);
  expect(median([4, 1, 3, 2])).toBe(2.5);
  expect(median([])).toBeNaN();
});

test("memory that levels off plateaus, however the garbage between collections swings RSS", () => {
  const live = [60, 95, 100, 104, 98];
  expect(memoryPlateaus(live.map((mb) => slice({ live: mb })))).toBe(true);
  const swinging = [240, 310, 270, 390, 290].map((rss, n) => slice({ live: live[n] as number, rss, peak: rss + 60 }));
  expect(memoryPlateaus(swinging)).toBe(true);
});

test("memory that keeps growing on the heap or outside it does not plateau", () => {
  expect(memoryPlateaus([100, 130, 160, 190].map((mb) => slice({ live: mb })))).toBe(false);
  expect(memoryPlateaus([90, 110, 130, 150].map((mb) => slice({ offHeap: mb })))).toBe(false);
  expect(memoryPlateaus([slice({}), slice({})])).toBe(false);
  expect(memoryPlateaus([slice({}), slice({}), slice({ live: Number.NaN })])).toBe(false);
});

test("every goal is met by a steady run, and each is missed by a run broken in its way", () => {
  const steady = [slice({ live: 70, p99: 10 }), slice({ p99: 11 }), slice({ p99: 12 }), slice({ p99: 12 })];
  expect(soakVerdicts(steady, { replays: 150, badReplays: 0 }).every((v) => v.met)).toBe(true);

  const failing = (slices: Slice[], badReplays = 0) =>
    soakVerdicts(slices, { replays: 150, badReplays })
      .filter((v) => !v.met)
      .map((v) => v.text.split(" ")[0]);
  expect(failing([300, 600, 900, 1_200].map((mb) => slice({ live: mb })))).toEqual(["memory"]);
  // The bound is on the true peak, however level the memory is.
  expect(failing([slice({}), slice({ peak: 1_600 }), slice({})])).toEqual(["RSS"]);
  expect(failing([10, 12, 14, 16].map((p99) => slice({ p99 })))).toEqual(["p99"]);
  expect(failing(steady, 1)).toEqual(["150"]);
  expect(soakVerdicts([], { replays: 0, badReplays: 0 })).toEqual([{ met: false, text: "no slice ran" }]);
});
