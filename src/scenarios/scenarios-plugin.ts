/**
 * The scenarios plugin: loads the library and the configured scenarios,
 * builds the engine the HTTP pipeline asks for effects, and adds the
 * `/_sim/scenarios` admin routes.
 */
import type { SimulatorPlugin, SimulatorPluginFactory } from "../domain/plugin-port.ts";
import { createScenarioAdmin } from "./admin-routes.ts";
import { SCENARIO_ADMIN_SPEC } from "./admin-spec.ts";
import { createScenarioEngine, type ManagedScenarioEngine } from "./engine.ts";
import { prepareScenarios, ScenarioLoadError } from "./options.ts";
import { type ScenariosPluginOptions, scenariosPluginSettings } from "./scenario-settings.ts";

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
    const settings = scenariosPluginSettings(options, () => Math.floor(context.random.next() * 2 ** 32));
    const engine = createScenarioEngine({
      seed: settings.seed,
      magicAccounts: settings.magicAccounts,
      defaultOutcomeTiming: settings.defaultOutcomeTiming,
      scenarios: prepared.scenarios,
      ...(settings.counters === undefined ? {} : { counters: settings.counters }),
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
