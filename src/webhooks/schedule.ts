/**
 * The retry schedule as it is configured: the delay before each attempt of a
 * message, the first counted from when the status was reached, each next one
 * from the end of the failed attempt before it, and the per-attempt timeout.
 * The jitter on each delay is drawn as attempts run (`delivery-transitions.ts`).
 */

/** Standard Webhooks' example: at once, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h. */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = [
  0,
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  14 * 3_600_000,
  20 * 3_600_000,
  24 * 3_600_000,
];

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/;

/**
 * Parses `250ms`, `5s`, `1.5m`, `2h`, `1d`; a bare number is milliseconds.
 *
 * @example
 * parseDuration("100ms"); // 100
 * parseDuration("5m"); // 300000
 */
export function parseDuration(text: string): number {
  const match = DURATION.exec(text.trim());
  if (match === null) throw new RangeError(`'${text}' is not a duration (e.g. 500ms, 5s, 5m, 2h)`);
  const ms = Number(match[1]) * (UNIT_MS[match[2] ?? "ms"] ?? 1);
  return Math.round(ms);
}

/**
 * Parses a comma-separated schedule, one delay per attempt.
 *
 * @example
 * parseSchedule("0,100ms,1s"); // [0, 100, 1000]: three attempts
 */
export function parseSchedule(text: string): number[] {
  const parts = text.split(",").map((part) => part.trim());
  if (parts.length === 0 || parts.some((part) => part === "")) {
    throw new RangeError(`'${text}' is not a schedule (e.g. 0,100ms,1s)`);
  }
  return parts.map(parseDuration);
}

/** Per-attempt timeout unless configured: Standard Webhooks suggests 15–30 s. */
const DEFAULT_WEBHOOK_TIMEOUT_MS = 15_000;

/** A schedule from options (ms list or text), or the default; throws RangeError when unusable. */
export function resolveSchedule(schedule: readonly number[] | string | undefined): readonly number[] {
  const resolved = typeof schedule === "string" ? parseSchedule(schedule) : (schedule ?? DEFAULT_RETRY_SCHEDULE);
  if (resolved.length === 0) throw new RangeError("a retry schedule needs at least one attempt");
  if (resolved.some((ms) => !Number.isFinite(ms) || ms < 0)) throw new RangeError("retry delays must be ≥ 0 ms");
  return [...resolved];
}

export function resolveTimeout(timeout: number | string | undefined): number {
  const ms = typeof timeout === "string" ? parseDuration(timeout) : (timeout ?? DEFAULT_WEBHOOK_TIMEOUT_MS);
  if (!Number.isFinite(ms) || ms <= 0) throw new RangeError("a webhook timeout must be > 0 ms");
  return ms;
}
