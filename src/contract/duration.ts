/**
 * One duration as every face writes it: a non-negative decimal number with a
 * unit `ms`, `s`, `m` or `h` (`0` alone is allowed), e.g. `500ms`, `1.5s`.
 * The CLI's flags, config files, scenarios and the harness's options all
 * read durations this way.
 */
const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const DURATION_PATTERN = /^(\d+(?:\.\d+)?|\.\d+)(ms|s|m|h)$/;

/** A duration, blanks around it allowed, as a fragment of a larger pattern (the timing syntax's). */
export const DURATION_TEXT = String.raw`\s*(?:0|(?:\d+(?:\.\d+)?|\.\d+)(?:ms|s|m|h))\s*`;

/** The text `parseDuration` accepts, as a JSON Schema `pattern` can carry it. */
export const DURATION_TEXT_PATTERN = new RegExp(`^${DURATION_TEXT}$`);

/**
 * Parses one duration (`500ms`, `2s`, `1.5s`, `1m`, `0`) to milliseconds.
 *
 * @example
 * parseDuration("1.5s"); // { ok: true, ms: 1500 }
 * parseDuration("soon"); // { ok: false, error: "…" }
 */
export function parseDuration(
  text: string,
): { readonly ok: true; readonly ms: number } | { readonly ok: false; readonly error: string } {
  const trimmed = text.trim();
  if (trimmed === "0") return { ok: true, ms: 0 };
  const match = DURATION_PATTERN.exec(trimmed);
  const unit = match?.[2] === undefined ? undefined : UNIT_MS[match[2]];
  if (match?.[1] === undefined || unit === undefined) {
    return { ok: false, error: `"${text}" is not a duration (expected e.g. 500ms, 2s, 1.5s, 1m)` };
  }
  return { ok: true, ms: Math.round(Number(match[1]) * unit) };
}
