/**
 * `compare --calibrate FILE`: a simulator config fitted to what the target
 * did, so `serve --config FILE` imitates it: the pending → final timing
 * (by its quantiles: min, p10, p50, p90, p95, max), the outcome mix (each
 * failed final status's share of the finals, with its own timing where it
 * differs from the rest), and the provider profile both sides were read
 * with. The config is validated by the very schema `serve` reads it with
 * before it is written.
 */
import { writeFile } from "node:fs/promises";
import { dirname, relative, resolve } from "node:path";
import { compileProfile } from "../contract/provider-profile/compile.ts";
import { mapStatuses } from "../contract/provider-profile/dialect-statuses.ts";
import type { ProviderProfile } from "../contract/provider-profile/schema.ts";
import { DEFAULT_STATUS_DEFINITIONS } from "../contract/status-codes.ts";
import { keyOfQuantile, type QuantileTiming } from "../domain/quantile-timing.ts";
import { parseSimulatorConfig } from "../simulator/config.ts";
import type { SideObservations } from "./observe.ts";
import { compareTimings } from "./rules.ts";
import { quantile } from "./statistics.ts";

/** Shares are written to 3 decimals: the observed share carries no more precision than that. */
const SHARE_DECIMALS = 1000;

export interface CalibrationInput {
  readonly target: SideObservations;
  /** The provider profile file compared with, as given on the command line. */
  readonly providerFile?: string | undefined;
  /** That profile, loaded: the target's status names are read back into the simulator's codes through it. */
  readonly provider?: ProviderProfile | undefined;
}

export interface Calibration {
  readonly config: Record<string, unknown>;
  /** Final statuses the target reached that the simulator has no status for: left out of the mix, named here. */
  readonly leftOut: readonly string[];
}

/** The config file's form of a quantile timing: `{ quantiles: { p50: "300ms", … } }`. */
function quantilesObject(timing: QuantileTiming): { quantiles: Record<string, string> } {
  return { quantiles: Object.fromEntries(timing.points.map((point) => [keyOfQuantile(point.q), `${point.ms}ms`])) };
}

function squash(text: string): string {
  return text.toLowerCase().replaceAll(/[^a-z]/g, "");
}

/**
 * The simulator's failed-class code that the profile writes under `name`
 * ("Timeout" → 6, a dialect's "TIMEOUT" → 6): of the codes the profile
 * shows by that name, the one whose own name is the same, else the first.
 */
function simulatorCodeOf(name: string, provider: ProviderProfile | undefined): number | undefined {
  const statuses = compileProfile(provider).statuses;
  const table = provider?.statuses?.table;
  const dialect = table === undefined ? (code: number) => code : (code: number) => mapStatuses(table)(code).code;
  const shownAs = DEFAULT_STATUS_DEFINITIONS.filter(
    (definition) => definition.class === "failed" && statuses.nameOf(dialect(definition.code)) === name,
  );
  return (shownAs.find((definition) => squash(definition.message) === squash(name)) ?? shownAs[0])?.code;
}

/** Only an outcome seen this often can show that its timing differs from the rest. */
const MIN_OWN_TIMING = 10;

/** The failed outcomes, each with its share and (when the KS test of rules.ts tells it apart) its own timing. */
function outcomeMix(input: CalibrationInput) {
  const { target } = input;
  const finals = Object.values(target.finals).reduce((sum, count) => sum + count, 0);
  const statuses = compileProfile(input.provider).statuses;
  // Success is what is left of the mix; every other final is an outcome of its own.
  const succeeds = (name: string) =>
    [...statuses.table.keys()].some((code) => statuses.nameOf(code) === name && statuses.classOf(code) === "success");
  const failedNames = Object.keys(target.finals).filter((name) => !succeeds(name));
  const leftOut: string[] = [];
  const outcomes: { status: number; share: number; name: string; ownTiming?: QuantileTiming }[] = [];
  for (const name of failedNames) {
    const status = simulatorCodeOf(name, input.provider);
    if (status === undefined) {
      leftOut.push(name);
      continue;
    }
    const times = target.finalTimesByStatus[name] ?? [];
    const rest = Object.entries(target.finalTimesByStatus).flatMap(([other, ms]) => (other === name ? [] : ms));
    // Both samples were seen by the same poller: its observation error applies to either.
    const errors = { simulator: target.finalTimeErrorsMs, target: target.finalTimeErrorsMs };
    const differs = times.length >= MIN_OWN_TIMING && !compareTimings(name, "send", times, rest, errors).agrees;
    const share = Math.round(((target.finals[name] ?? 0) / finals) * SHARE_DECIMALS) / SHARE_DECIMALS;
    const ownTiming = differs ? fitTiming(times) : undefined;
    outcomes.push({ status, share, name, ...(ownTiming === undefined ? {} : { ownTiming }) });
  }
  return { outcomes, leftOut };
}

/**
 * @example
 * calibrationConfig({ target }).config;
 * // { timing: { quantiles: { min: "180ms", …, max: "2900ms" } }, outcomes: [{ status: 2, share: 0.1 }, { status: 6, share: 0.05 }] }
 */
function calibrationConfig(input: CalibrationInput, configFile?: string): Calibration {
  const { target } = input;
  const { outcomes, leftOut } = outcomeMix(input);
  const ownNames = new Set(outcomes.flatMap((outcome) => (outcome.ownTiming === undefined ? [] : [outcome.name])));
  // The shared timing is fitted to the finals that have none of their own.
  const shared = Object.entries(target.finalTimesByStatus).flatMap(([name, ms]) => (ownNames.has(name) ? [] : ms));
  const timing = fitTiming(shared.length > 0 ? shared : target.finalTimesMs);
  const config: Record<string, unknown> = {};
  if (timing !== undefined) config.timing = quantilesObject(timing);
  if (target.finalTimesMs.length > 0) {
    config.outcomes = outcomes.map(({ status, share, ownTiming }) => ({
      status,
      share,
      ...(ownTiming === undefined ? {} : { timing: quantilesObject(ownTiming) }),
    }));
  }
  if (input.providerFile !== undefined) {
    // The config resolves the profile from its own folder.
    const from = configFile === undefined ? "." : dirname(resolve(configFile));
    config.provider = relative(from, resolve(input.providerFile));
  }
  return { config, leftOut };
}

/** Writes the fitted config as JSON (which `serve --config` reads like YAML), after checking that `serve` accepts it. */
export async function writeCalibration(file: string, input: CalibrationInput): Promise<Calibration> {
  const calibration = calibrationConfig(input, file);
  const parsed = parseSimulatorConfig(calibration.config);
  if (!parsed.ok) throw new Error(`the fitted config does not validate: ${JSON.stringify(parsed.issues)}`);
  await writeFile(file, `${JSON.stringify(calibration.config, null, 2)}\n`, "utf8");
  return calibration;
}

/** The quantiles a calibration states: the body, the tail the rules judge (p95), and both ends. */
const FITTED_QUANTILES: readonly number[] = [0, 0.1, 0.5, 0.9, 0.95, 1];

/**
 * Fits the simulator's timing to observed pending → final durations by
 * their quantiles (min, p10, p50, p90, p95, max), which the simulator then
 * draws from by linear interpolation between them. Quantiles assume no
 * shape: a deployment whose latency is bimodal or capped is reproduced as
 * it is, where a lognormal fit would bend it into a lognormal.
 *
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
