/**
 * A pending → final delay stated by its quantiles (`p50 = 300ms, p95 =
 * 1.2s, max = 3s`), as a deployment's measured latency is usually known. A
 * draw takes a uniform u in [0, 1) and reads the inverse CDF at u, linear
 * between the stated quantiles: every stated quantile is reproduced exactly,
 * and nothing is drawn beyond `max`. `min` defaults to 0.
 */

export interface QuantilePoint {
  /** The quantile, 0..1 (0 = min, 1 = max). */
  readonly q: number;
  readonly ms: number;
}

export interface QuantileTiming {
  readonly kind: "quantiles";
  /** Sorted by `q`, from q = 0 to q = 1, with `ms` never decreasing. */
  readonly points: readonly QuantilePoint[];
}

/** `min`, `max`, or `p` and a percentage above 0 and below 100 (`p50`, `p99.9`). */
export const QUANTILE_KEY_TEXT = String.raw`(?:min|max|p(?:[1-9]\d?(?:\.\d+)?|0\.\d*[1-9]\d*))`;
const QUANTILE_KEY = new RegExp(`^${QUANTILE_KEY_TEXT}$`);

/** `p50` → 0.5, `min` → 0, `max` → 1; undefined for anything else. */
function quantileOfKey(key: string): number | undefined {
  if (!QUANTILE_KEY.test(key)) return undefined;
  if (key === "min") return 0;
  if (key === "max") return 1;
  return Number(key.slice(1)) / 100;
}

/** 0.5 → `p50`, 0 → `min`, 1 → `max`. */
export function keyOfQuantile(q: number): string {
  if (q === 0) return "min";
  if (q === 1) return "max";
  return `p${Number((q * 100).toFixed(6))}`;
}

export type QuantileTimingResult =
  { readonly ok: true; readonly timing: QuantileTiming } | { readonly ok: false; readonly error: string };

/**
 * Stated quantiles (key → ms) as a timing: `max` is required (the tail must
 * end somewhere), `min` defaults to 0, and a later quantile may not be shorter.
 *
 * @example
 * quantileTiming([["p50", 300], ["p95", 1200], ["max", 3000]]);
 * // { ok: true, timing: { kind: "quantiles", points: [{q: 0, ms: 0}, {q: 0.5, ms: 300}, {q: 0.95, ms: 1200}, {q: 1, ms: 3000}] } }
 */
export function quantileTiming(entries: readonly (readonly [string, number])[]): QuantileTimingResult {
  const points: QuantilePoint[] = [];
  for (const [key, ms] of entries) {
    const q = quantileOfKey(key);
    if (q === undefined)
      return { ok: false, error: `"${key}" is not a quantile (expected min, p10, p50, p99.9, max …)` };
    if (points.some((point) => point.q === q)) return { ok: false, error: `${key} is stated twice` };
    points.push({ q, ms });
  }
  if (!points.some((point) => point.q === 1)) return { ok: false, error: "the quantiles need max (the longest delay)" };
  if (!points.some((point) => point.q === 0)) points.push({ q: 0, ms: 0 });
  points.sort((a, b) => a.q - b.q);
  for (const [index, point] of points.entries()) {
    const before = points[index - 1];
    if (before !== undefined && point.ms < before.ms) {
      return { ok: false, error: `${keyOfQuantile(point.q)} is shorter than ${keyOfQuantile(before.q)}` };
    }
  }
  return { ok: true, timing: { kind: "quantiles", points } };
}

/**
 * The inverse CDF at `u` (0..1), linear between stated quantiles, in whole ms.
 *
 * @example
 * sampleQuantiles(timing, random.next());
 */
export function sampleQuantiles(timing: QuantileTiming, u: number): number {
  const { points } = timing;
  const upper = Math.max(
    1,
    points.findIndex((point) => point.q >= u),
  );
  const high = points[upper] ?? (points.at(-1) as QuantilePoint);
  const low = points[upper - 1] ?? high;
  const span = high.q - low.q;
  const share = span === 0 ? 0 : (u - low.q) / span;
  return Math.round(low.ms + (high.ms - low.ms) * Math.min(1, Math.max(0, share)));
}
