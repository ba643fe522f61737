// The soak's goals judged from its measurements: a run whose memory keeps
// growing, whose tail latency degrades or whose replay made a second order fails.
import { expect, test } from "vitest";
import { peaksPlateau, type Slice, soakVerdicts } from "../../bench/soak-verdict.ts";

const slice = (peakRssMb: number, p99Ms = 10): Slice => ({ rps: 1_000, p99Ms, problems: 0, peakRssMb });

test("memory that levels off plateaus; memory that keeps growing does not", () => {
  expect(peaksPlateau([slice(200), slice(400), slice(410), slice(405), slice(412)])).toBe(true);
  expect(peaksPlateau([slice(200), slice(400), slice(500), slice(600)])).toBe(false);
  expect(peaksPlateau([slice(400), slice(400)])).toBe(false);
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
  expect(failing([slice(300, 10), slice(400, 12), slice(400, 14), slice(400, 16)])).toEqual(["p99"]);
  expect(failing(steady, 1)).toEqual(["150"]);
  expect(soakVerdicts([], { replays: 0, badReplays: 0 })).toEqual([{ met: false, text: "no slice ran" }]);
});
