/**
 * The scenarios' settings, normalised once: the options of the scenarios
 * plugin, of the scenario engine and of how scenarios are chosen at start,
 * each completed from one table of defaults into a frozen settings object
 * the code reads as it is. The timing an outcome without `after` takes is
 * the lifecycle's (`DEFAULT_TIMING`) unless the simulator passes its own.
 */
import type { SharedAttemptCounters } from "../domain/scenario-engine.ts";
import { DEFAULT_TIMING, parseTiming, type Timing } from "../domain/timing.ts";
import type { LoadedScenario } from "./load.ts";
import type { ScenarioFileInput } from "./schema.ts";

export interface ScenarioOptions {
  /** Files or shipped scenario names, active for every customer (`serve --scenario`). */
  readonly active?: readonly string[] | undefined;
  /** Per customer id: files or names active for that customer only (`serve --scenario-for ID=NAME`). */
  readonly customers?: Readonly<Record<string, readonly string[]>> | undefined;
  /** Files or names loaded but not active (for `X-Sim-Scenario` and the admin API). */
  readonly load?: readonly string[] | undefined;
  /** Scenario objects given in code, loaded but not active. */
  readonly definitions?: readonly ScenarioFileInput[] | undefined;
  /** Load the shipped library, so `X-Sim-Scenario: flaky-gateway` works. Default true. */
  readonly library?: boolean | undefined;
  /** The magic test accounts. Default true. */
  readonly magicAccounts?: boolean | undefined;
  /** Seed of every scenario without its own `seed`. Default: the simulator's seed. */
  readonly seed?: number | undefined;
  /** Relative file paths resolve from here (the config file's folder). Default: the working directory. */
  readonly baseDir?: string | undefined;
}

export interface ScenariosPluginOptions extends ScenarioOptions {
  /** Delay of an `outcome` without `after`: the simulator's own timing (`2s`, `1s..3s`, a Timing). */
  readonly defaultOutcomeTiming?: string | Timing;
  /** Attempt counts every instance on a Redis store shares; this plugin's own otherwise. */
  readonly counters?: SharedAttemptCounters | undefined;
}

export interface ScenarioEngineOptions {
  /** Seeds every scenario that has no `seed` of its own (mixed with the scenario's name). */
  readonly seed?: number;
  /** The magic test accounts; on unless `false`. */
  readonly magicAccounts?: boolean;
  /** Delay of an `outcome` without `after` (the simulator's default lifecycle timing). */
  readonly defaultOutcomeTiming?: Timing;
  /** Scenarios loaded at start (already validated). */
  readonly scenarios?: readonly LoadedScenario[];
  /** Attempt counters kept per rule before the oldest are forgotten. */
  readonly maxTrackedKeys?: number;
  /**
   * Which state (generator, counters) a request- or customer-scoped
   * activation uses. The default keeps one per customer; the tests replace
   * it with a shared one to prove the isolation property can fail.
   */
  readonly stateScope?: (kind: "request" | "customer", customerId: string) => string;
  /**
   * Attempt counts shared with other instances (a Redis store). They restart
   * with a reset, not when a scenario is activated or replaced: another
   * instance may be counting with them.
   */
  readonly counters?: SharedAttemptCounters;
}

const SCENARIO_DEFAULTS = Object.freeze({
  engineSeed: 0,
  maxTrackedKeys: 100_000,
  stateScope: (kind: "request" | "customer", customerId: string): string => `${kind}:${customerId}`,
  defaultOutcomeTiming: DEFAULT_TIMING,
  library: true,
  magicAccounts: true,
});

/**
 * @example
 * scenarioEngineSettings({ seed: 7 }).maxTrackedKeys; // 100_000
 */
export function scenarioEngineSettings(options: ScenarioEngineOptions) {
  return Object.freeze({
    seed: (options.seed ?? SCENARIO_DEFAULTS.engineSeed) >>> 0,
    magicAccounts: options.magicAccounts ?? SCENARIO_DEFAULTS.magicAccounts,
    defaultOutcomeTiming: options.defaultOutcomeTiming ?? SCENARIO_DEFAULTS.defaultOutcomeTiming,
    scenarios: options.scenarios,
    maxTrackedKeys: options.maxTrackedKeys ?? SCENARIO_DEFAULTS.maxTrackedKeys,
    stateScope: options.stateScope ?? SCENARIO_DEFAULTS.stateScope,
    counters: options.counters,
  });
}

/** An unreadable timing is the simulator's own error to report (it refuses to start), so the default stands in. */
function resolveTiming(timing: string | Timing | undefined): Timing {
  if (timing === undefined) return SCENARIO_DEFAULTS.defaultOutcomeTiming;
  if (typeof timing !== "string") return timing;
  const parsed = parseTiming(timing);
  return parsed.ok ? parsed.timing : SCENARIO_DEFAULTS.defaultOutcomeTiming;
}

/**
 * The plugin's settings; without a seed of its own, the engine's is drawn
 * from the simulator's seeded source, so a simulator seed replays it.
 */
export function scenariosPluginSettings(options: ScenariosPluginOptions, drawSeed: () => number) {
  return Object.freeze({
    seed: options.seed ?? drawSeed(),
    magicAccounts: options.magicAccounts ?? SCENARIO_DEFAULTS.magicAccounts,
    defaultOutcomeTiming: resolveTiming(options.defaultOutcomeTiming),
    counters: options.counters,
  });
}

/** A scenario reference with whom it is active for, or whether it is loaded only. */
interface ScenarioRef {
  readonly ref: string;
  readonly customer?: string;
  readonly loadOnly?: boolean;
}

/**
 * How scenarios are chosen at start: every reference in one list, with the
 * library, the inline definitions and where relative paths resolve from.
 */
export function scenarioChoiceSettings(options: ScenarioOptions) {
  const refs: ScenarioRef[] = [
    ...(options.active ?? []).map((ref) => ({ ref })),
    ...Object.entries(options.customers ?? {}).flatMap(([customer, list]) => list.map((ref) => ({ ref, customer }))),
    ...(options.load ?? []).map((ref) => ({ ref, loadOnly: true })),
  ];
  return Object.freeze({
    refs: Object.freeze(refs),
    definitions: options.definitions ?? [],
    library: options.library ?? SCENARIO_DEFAULTS.library,
    baseDir: options.baseDir ?? process.cwd(),
  });
}
