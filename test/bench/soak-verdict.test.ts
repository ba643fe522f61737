// The soak's goals judged from its measurements: a run whose memory keeps
// growing, whose tail latency degrades or whose replay made a second order fails.
import { expect, test } from "vitest";
import { median, rssPlateaus, type Slice, soakVerdicts } from "../../bench/soak-verdict.ts";

/** A slice whose RSS samples sat at `medianRssMb`, with one peak at `peakRssMb`. */
const slice = (medianRssMb: number, p99Ms = 10, peakRssMb = medianRssMb): Slice => ({
  rps: 1_000,
  p99Ms,
  problems: 0,
  peakRssMb,
  medianRssMb,
  medianHeapUsedMb: medianRssMb / 2,
});

test("the median of samples is the middle one, or the mean of the two middle ones", () => {
  expect(median([5, 1, 3])).toBe(3);
  expect(median([4, 1, 3, 2])).toBe(2.5);
  expect(median([])).toBeNaN();
});

test("memory that levels off plateaus; memory that keeps growing does not", () => {
  expect(rssPlateaus([slice(200), slice(400), slice(410), slice(405), slice(412)])).toBe(true);
  expect(rssPlateaus([slice(200), slice(400), slice(500), slice(600)])).toBe(false);
  expect(rssPlateaus([slice(400), slice(400)])).toBe(false);
});

test("a late peak on level memory is the collector's timing, but level peaks on growing memory are growth", () => {
  expect(rssPlateaus([slice(300), slice(310, 10, 330), slice(312, 10, 340), slice(311, 10, 415)])).toBe(true);
  expect(rssPlateaus([slice(300, 10, 420), slice(340, 10, 420), slice(380, 10, 420)])).toBe(false);
});

test("every goal is met by a steady run, and each is missed by a run broken in its way", () => {
  const steady = [slice(300, 10), slice(400, 11), slice(405, 12), slice(402, 12)];
  expect(soakVerdicts(steady, { replays: 150, badReplays: 0 }).every((v) => v.met)).toBe(true);

  const failing = (slices: Slice[], badReplays = 0) =>
    soakVerdicts(slices, { replays: 150, badReplays })
      .filter((v) => !v.met)
      .map((v) => v.text.split(" ")[0]);
  expect(failing([slice(300), slice(600), slice(900), slice(1_200)])).toEqual(["RSS"]);
  expect(failing([slice(1_600), slice(1_600), slice(1_600)])).toEqual(["RSS"]);
  // The bound is on the true peak, however level the medians are.
  expect(failing([slice(900), slice(900, 10, 1_600), slice(900)])).toEqual(["RSS"]);
  expect(failing([slice(300, 10), slice(400, 12), slice(400, 14), slice(400, 16)])).toEqual(["p99"]);
  expect(failing(steady, 1)).toEqual(["150"]);
  expect(soakVerdicts([], { replays: 0, badReplays: 0 })).toEqual([{ met: false, text: "no slice ran" }]);
});
