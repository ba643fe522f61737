/**
 * `compare --calibrate FILE`: a simulator config fitted to what the target
 * did, so `serve --config FILE` imitates it: the pending → final timing
 * (by its quantiles: min, p10, p50, p90, p95, max), the share of orders that fail, and the
 * provider profile both sides were read with. The config is validated by the
 * very schema `serve` reads it with before it is written.
 */
import { writeFile } from "node:fs/promises";
import { dirname, relative, resolve } from "node:path";
import { keyOfQuantile, type QuantileTiming } from "../domain/quantile-timing.ts";
import { parseSimulatorConfig } from "../simulator/config.ts";
import { fitTiming } from "./fit-timing.ts";
import type { SideObservations } from "./observe.ts";

/** Failure rates are written to 3 decimals: the observed rate carries no more precision than that. */
const RATE_DECIMALS = 1000;

export interface CalibrationInput {
  readonly target: SideObservations;
  /** The provider profile file compared with, as given on the command line. */
  readonly providerFile?: string | undefined;
}

/** The config file's form of a quantile timing: `{ quantiles: { p50: "300ms", … } }`. */
function quantilesObject(timing: QuantileTiming): { quantiles: Record<string, string> } {
  return { quantiles: Object.fromEntries(timing.points.map((point) => [keyOfQuantile(point.q), `${point.ms}ms`])) };
}

/**
 * @example
 * calibrationConfig({ target }); // { timing: { quantiles: { min: "180ms", p10: "240ms", …, max: "2900ms" } }, failureRate: 0.25 }
 */
function calibrationConfig(input: CalibrationInput, configFile?: string): Record<string, unknown> {
  const { target } = input;
  const finals = Object.values(target.finalClasses).reduce((sum, count) => sum + count, 0);
  const timing = fitTiming(target.finalTimesMs);
  const config: Record<string, unknown> = {};
  if (timing !== undefined) config.timing = quantilesObject(timing);
  if (finals > 0)
    config.failureRate = Math.round(((target.finalClasses.failed ?? 0) / finals) * RATE_DECIMALS) / RATE_DECIMALS;
  if (input.providerFile !== undefined) {
    // The config resolves the profile from its own folder.
    const from = configFile === undefined ? "." : dirname(resolve(configFile));
    config.provider = relative(from, resolve(input.providerFile));
  }
  return config;
}

/** Writes the fitted config as JSON (which `serve --config` reads like YAML), after checking that `serve` accepts it. */
export async function writeCalibration(file: string, input: CalibrationInput): Promise<Record<string, unknown>> {
  const config = calibrationConfig(input, file);
  const parsed = parseSimulatorConfig(config);
  if (!parsed.ok) throw new Error(`the fitted config does not validate: ${JSON.stringify(parsed.issues)}`);
  await writeFile(file, `${JSON.stringify(config, null, 2)}\n`, "utf8");
  return config;
}
