/**
 * The scenarios plugin: loads the library and the configured scenarios,
 * builds the engine the HTTP pipeline asks for effects, and adds the
 * `/_sim/scenarios` admin routes.
 */
import type { SharedAttemptCounters } from "../domain/scenario-engine.ts";
import { DEFAULT_TIMING, parseTiming, type Timing } from "../domain/timing.ts";
import type { SimulatorPlugin, SimulatorPluginFactory } from "../domain/plugin-port.ts";
import { createScenarioAdmin } from "./admin-routes.ts";
import { SCENARIO_ADMIN_SPEC } from "./admin-spec.ts";
import { createScenarioEngine, type ManagedScenarioEngine } from "./engine.ts";
import { prepareScenarios, ScenarioLoadError, type ScenarioOptions } from "./options.ts";

export interface ScenariosPluginOptions extends ScenarioOptions {
  /** Delay of an `outcome` without `after`: the simulator's own timing (`2s`, `1s..3s`, a Timing). */
  readonly defaultOutcomeTiming?: string | Timing;
  /** Attempt counts every instance on a Redis store shares; this plugin's own otherwise. */
  readonly counters?: SharedAttemptCounters | undefined;
}

function resolveTiming(timing: string | Timing | undefined): Timing {
  if (timing === undefined) return DEFAULT_TIMING;
  if (typeof timing !== "string") return timing;
  const parsed = parseTiming(timing);
  // An unreadable timing is the simulator's own error to report; it refuses to start.
  return parsed.ok ? parsed.timing : DEFAULT_TIMING;
}

export interface ScenariosPlugin extends SimulatorPlugin {
  readonly scenarios: ManagedScenarioEngine;
}

/**
 * @example
 * const sim = await createSimulator({
 *   plugins: [createScenariosPlugin({ active: ["flaky-gateway"], customers: { acme: ["./qa/outage.yaml"] } })],
 * });
 */
export function createScenariosPlugin(options: ScenariosPluginOptions = {}): SimulatorPluginFactory {
  return async (context): Promise<ScenariosPlugin> => {
    const prepared = await prepareScenarios(options, context.statusTable);
    if (!prepared.ok) throw new ScenarioLoadError(prepared.issues);
    const engine = createScenarioEngine({
      seed: options.seed ?? Math.floor(context.random.next() * 2 ** 32),
      ...(options.magicAccounts === undefined ? {} : { magicAccounts: options.magicAccounts }),
      defaultOutcomeTiming: resolveTiming(options.defaultOutcomeTiming),
      scenarios: prepared.scenarios,
      ...(options.counters === undefined ? {} : { counters: options.counters }),
    });
    for (const activation of prepared.activations) {
      engine.activate(activation.name, activation.customer === undefined ? {} : { customer: activation.customer });
    }
    return {
      name: "scenarios",
      scenarios: engine,
      admin: createScenarioAdmin({ engine, store: context.store, parseOptions: { statusTable: context.statusTable } }),
      adminSpec: SCENARIO_ADMIN_SPEC,
      // A reset customer may reuse its references: attempt counting starts again.
      async reset(customerId) {
        await engine.resetState(customerId);
      },
    };
  };
}
