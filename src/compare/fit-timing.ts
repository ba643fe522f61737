/**
 * Fits the simulator's lognormal timing to observed pending → final
 * durations, so a calibrated simulator reproduces a deployment's median and
 * tail. Fitting by quantiles (median = p50, sigma from p50 and p95) rather
 * than by moments keeps one slow outlier from stretching the whole curve.
 */
import type { Timing } from "../domain/timing.ts";
import { quantile } from "./statistics.ts";

/** The standard normal quantile at 0.95: p95 of a lognormal is median · e^(1.645 σ). */
const Z_95 = 1.6448536269514722;

/**
 * @example
 * fitTiming(observedMs); // { kind: "lognormal", medianMs: 300, sigma: 0.84 }
 */
export function fitTiming(durationsMs: readonly number[]): Timing | undefined {
  const positive = durationsMs.filter((ms) => ms > 0);
  if (positive.length === 0) return undefined;
  const p50 = quantile(positive, 0.5);
  const p95 = quantile(positive, 0.95);
  const medianMs = Math.max(1, Math.round(p50));
  if (p95 <= p50) return { kind: "fixed", ms: medianMs };
  // Two decimals: the timing text (`lognormal:300ms,0.84`) is what a config file keeps.
  const sigma = Math.round((Math.log(p95 / p50) / Z_95) * 100) / 100;
  return { kind: "lognormal", medianMs, sigma };
}
