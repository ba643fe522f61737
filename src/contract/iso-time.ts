/**
 * Timestamps as the API writes them: `Date.prototype.toISOString()`'s text,
 * built without it. Every order lookup writes three or more (created,
 * updated, each status step) and V8 formats each through `snprintf`: the
 * arithmetic below takes about half the time, and gives the same text for
 * every millisecond of years 1970–9999; anything else goes to `toISOString`.
 */

const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, "0"));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, "0"));
const MS_PER_DAY = 86_400_000;
/** 10000-01-01T00:00:00.000Z: from there on the year takes more than four digits. */
const YEAR_10000_MS = 253_402_300_800_000;
/** Days from 0000-03-01 to 1970-01-01, the epoch of the civil-date arithmetic. */
const EPOCH_SHIFT_DAYS = 719_468;
const DAYS_PER_ERA = 146_097;

/**
 * @example
 * isoTime(0); // "1970-01-01T00:00:00.000Z", as new Date(0).toISOString()
 */
export function isoTime(ms: number): string {
  if (!(ms >= 0 && ms < YEAR_10000_MS) || !Number.isInteger(ms)) return new Date(ms).toISOString();
  const days = Math.floor(ms / MS_PER_DAY);
  let rest = ms - days * MS_PER_DAY;
  // Days to a civil date (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms"), years starting in March.
  const shifted = days + EPOCH_SHIFT_DAYS;
  const era = Math.floor(shifted / DAYS_PER_ERA);
  const dayOfEra = shifted - era * DAYS_PER_ERA;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const marchMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * marchMonth + 2) / 5) + 1;
  const month = marchMonth < 10 ? marchMonth + 3 : marchMonth - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const millis = rest - seconds * 1000;
  return `${pair(Math.floor(year / 100))}${pair(year % 100)}-${pair(month)}-${pair(day)}T${pair(hours)}:${pair(minutes)}:${pair(seconds)}.${THREE_DIGITS[millis] as string}Z`;
}

function pair(n: number): string {
  return TWO_DIGITS[n] as string;
}
