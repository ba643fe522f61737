import fc from "fast-check";
import { expect, it } from "vitest";
import { withJitter } from "../../src/webhooks/delivery-transitions.ts";
import { parseRetryAfter } from "../../src/webhooks/post-webhook.ts";
import {
  DEFAULT_RETRY_SCHEDULE,
  parseDuration,
  parseSchedule,
  resolveSchedule,
  resolveTimeout,
} from "../../src/webhooks/schedule.ts";

it("parses durations and schedules", () => {
  expect(parseSchedule("0,100ms,1s")).toEqual([0, 100, 1000]);
  expect(parseSchedule(" 0 , 5s , 5m , 2h , 1d ")).toEqual([0, 5000, 300_000, 7_200_000, 86_400_000]);
  expect(parseDuration("1.5s")).toBe(1500);
  expect(parseDuration("250")).toBe(250);
  for (const bad of ["", "0,,1s", "soon", "1 s", "-5s", "1w"])
    expect(() => parseSchedule(bad), bad).toThrow(RangeError);
});

it("the default schedule is Standard Webhooks' example: 10 attempts over about 3 days", () => {
  expect(DEFAULT_RETRY_SCHEDULE).toEqual(parseSchedule("0,5s,5m,30m,2h,5h,10h,14h,20h,24h"));
  expect(resolveSchedule(undefined)).toEqual(DEFAULT_RETRY_SCHEDULE);
  expect(() => resolveSchedule([])).toThrow(RangeError);
  expect(() => resolveSchedule([0, -1])).toThrow(RangeError);
  expect(resolveTimeout(undefined)).toBe(15_000);
  expect(resolveTimeout("500ms")).toBe(500);
  expect(() => resolveTimeout(0)).toThrow(RangeError);
});

it("jitter stays within ±jitter of the delay, keeps 0 at 0, and replays from the same draws (property)", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 86_400_000 }),
      fc.double({ min: 0, max: 1, noNaN: true }),
      fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
      (delay, jitter, draw) => {
        const jittered = withJitter(delay, jitter, () => draw);
        if (delay === 0) expect(jittered).toBe(0);
        expect(jittered).toBeGreaterThanOrEqual(Math.floor(delay * (1 - jitter)));
        expect(jittered).toBeLessThanOrEqual(Math.ceil(delay * (1 + jitter)));
        expect(withJitter(delay, jitter, () => draw)).toBe(jittered);
        expect(withJitter(delay, 0, () => draw)).toBe(delay);
      },
    ),
    { numRuns: 100 },
  );
});

it("Retry-After: delta seconds or an HTTP date; anything else is ignored", () => {
  const now = Date.parse("2026-03-02T10:00:00Z");
  expect(parseRetryAfter("120", now)).toBe(120_000);
  expect(parseRetryAfter("Mon, 02 Mar 2026 10:01:30 GMT", now)).toBe(90_000);
  expect(parseRetryAfter("Mon, 02 Mar 2026 09:00:00 GMT", now)).toBe(0);
  expect(parseRetryAfter("soon", now)).toBeUndefined();
  expect(parseRetryAfter(null, now)).toBeUndefined();
  expect(parseRetryAfter("-5", now)).toBeUndefined();
});
