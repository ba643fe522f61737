/**
 * The statistics `compare` judges with: quantiles, Wilson intervals for
 * rates, a two-proportion z-test for "do these two rates differ" and the
 * two-sample Kolmogorov–Smirnov test for "do these two timing distributions
 * differ". Pure functions, no dependencies: each is a textbook formula, cited
 * where it is not obvious.
 */

/** The standard normal quantile for a two-sided 99 % level, the level every interval here is stated at. */
const Z_99 = 2.5758293035489;

/** The q-quantile (0..1) of `values` by linear interpolation between order statistics (type 7). */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * Math.min(1, Math.max(0, q));
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const low = sorted[lower] as number;
  const high = sorted[upper] as number;
  return low + (high - low) * (position - lower);
}

export interface Summary {
  readonly n: number;
  readonly p50: number;
  readonly p95: number;
  readonly max: number;
}

export function summarise(values: readonly number[]): Summary {
  return {
    n: values.length,
    p50: quantile(values, 0.5),
    p95: quantile(values, 0.95),
    max: values.length === 0 ? Number.NaN : Math.max(...values),
  };
}

export interface Interval {
  readonly low: number;
  readonly high: number;
}

/**
 * Wilson score interval of a rate at 99 %: unlike the normal approximation it
 * stays inside 0..1 and is honest for small counts and rates near 0 or 1.
 */
export function wilsonInterval(successes: number, n: number): Interval {
  if (n === 0) return { low: 0, high: 1 };
  const z2 = Z_99 * Z_99;
  const rate = successes / n;
  const centre = (rate + z2 / (2 * n)) / (1 + z2 / n);
  const half = (Z_99 / (1 + z2 / n)) * Math.sqrt((rate * (1 - rate)) / n + z2 / (4 * n * n));
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/** The standard normal CDF, by the Abramowitz–Stegun 7.1.26 approximation of erf (error < 1.5e-7). */
export function normalCdf(x: number): number {
  const t = 1 / (1 + (0.3275911 * Math.abs(x)) / Math.SQRT2);
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-(x * x) / 2);
  return x >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/** Two-sided p-value of the pooled two-proportion z-test: do x1/n1 and x2/n2 come from one rate? */
export function twoProportionPValue(x1: number, n1: number, x2: number, n2: number): number {
  if (n1 === 0 || n2 === 0) return 1;
  const pooled = (x1 + x2) / (n1 + n2);
  const variance = pooled * (1 - pooled) * (1 / n1 + 1 / n2);
  if (variance === 0) return 1; // both rates 0, or both 1: identical
  const z = (x1 / n1 - x2 / n2) / Math.sqrt(variance);
  return 2 * (1 - normalCdf(Math.abs(z)));
}

export interface KsResult {
  /** The largest distance between the two empirical CDFs. */
  readonly d: number;
  readonly pValue: number;
}

/**
 * Two-sample Kolmogorov–Smirnov test with the asymptotic distribution and
 * Stephens' small-sample correction (Numerical Recipes §14.3.3).
 */
export function kolmogorovSmirnov(a: readonly number[], b: readonly number[]): KsResult {
  if (a.length === 0 || b.length === 0) return { d: 0, pValue: 1 };
  const left = [...a].sort((x, y) => x - y);
  const right = [...b].sort((x, y) => x - y);
  let i = 0;
  let j = 0;
  let d = 0;
  while (i < left.length && j < right.length) {
    const value = Math.min(left[i] as number, right[j] as number);
    while (i < left.length && (left[i] as number) <= value) i++;
    while (j < right.length && (right[j] as number) <= value) j++;
    d = Math.max(d, Math.abs(i / left.length - j / right.length));
  }
  const effective = Math.sqrt((left.length * right.length) / (left.length + right.length));
  return { d, pValue: kolmogorovTail((effective + 0.12 + 0.11 / effective) * d) };
}

/** Q_KS(λ) = 2 Σ (−1)^(k−1) e^(−2k²λ²), the tail of the Kolmogorov distribution. */
function kolmogorovTail(lambda: number): number {
  if (lambda < 1e-3) return 1;
  let sum = 0;
  for (let k = 1; k <= 100; k++) {
    const term = 2 * (k % 2 === 1 ? 1 : -1) * Math.exp(-2 * k * k * lambda * lambda);
    sum += term;
    if (Math.abs(term) < 1e-10) break;
  }
  return Math.min(1, Math.max(0, sum));
}
