import { fc, test } from "@fast-check/vitest";
import { expect } from "vitest";
import { isoTime } from "../../src/contract/iso-time.ts";

const YEAR_10000_MS = 253_402_300_800_000;

test.prop([fc.integer({ min: 0, max: YEAR_10000_MS - 1 })], { numRuns: 20_000 })(
  "writes every millisecond of years 1970–9999 as toISOString does",
  (ms) => {
    expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  },
);

test.prop([fc.integer({ min: 0, max: 8_000 * 366 }), fc.integer({ min: -1, max: 1 })])(
  "agrees at every day boundary, a millisecond either side",
  (day, offset) => {
    const ms = Math.max(0, day * 86_400_000 + offset);
    expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  },
);

test.prop([
  fc.oneof(
    fc.integer({ min: -8.64e15, max: -1 }),
    fc.integer({ min: YEAR_10000_MS, max: 8.64e15 }),
    fc.double({ min: 0, max: 1e13, noInteger: true, noNaN: true }),
  ),
])("hands anything else to toISOString: before 1970, after 9999, fractions", (ms) => {
  expect(isoTime(ms)).toBe(new Date(ms).toISOString());
});

test("throws for a time that is no time, as toISOString does", () => {
  expect(() => isoTime(Number.NaN)).toThrow(RangeError);
  expect(() => isoTime(Number.POSITIVE_INFINITY)).toThrow(RangeError);
});

test("writes the edges: the epoch, a leap day, the last millisecond it formats", () => {
  expect(isoTime(0)).toBe("1970-01-01T00:00:00.000Z");
  expect(isoTime(Date.UTC(2024, 1, 29, 23, 59, 59, 999))).toBe("2024-02-29T23:59:59.999Z");
  expect(isoTime(Date.UTC(2100, 2, 1))).toBe("2100-03-01T00:00:00.000Z");
  expect(isoTime(YEAR_10000_MS - 1)).toBe("9999-12-31T23:59:59.999Z");
});
