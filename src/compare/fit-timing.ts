/**
 * Fits the simulator's timing to observed pending → final durations by
 * their quantiles (min, p10, p50, p90, p95, max), which the simulator then
 * draws from by linear interpolation between them. Quantiles assume no
 * shape: a deployment whose latency is bimodal or capped is reproduced as
 * it is, where a lognormal fit would bend it into a lognormal.
 */
import type { QuantileTiming } from "../domain/quantile-timing.ts";
import { quantile } from "./statistics.ts";

/** The quantiles a calibration states: the body, the tail the rules judge (p95), and both ends. */
const FITTED_QUANTILES: readonly number[] = [0, 0.1, 0.5, 0.9, 0.95, 1];

/**
 * @example
 * fitTiming(observedMs); // { kind: "quantiles", points: [{ q: 0, ms: 180 }, { q: 0.1, ms: 240 }, …, { q: 1, ms: 2900 }] }
 */
export function fitTiming(durationsMs: readonly number[]): QuantileTiming | undefined {
  const observed = durationsMs.filter((ms) => Number.isFinite(ms) && ms >= 0);
  if (observed.length === 0) return undefined;
  return {
    kind: "quantiles",
    points: FITTED_QUANTILES.map((q) => ({ q, ms: Math.round(quantile(observed, q)) })),
  };
}
