/**
 * The simulator's plugins: the default ones its options keep and the ones
 * they add, each built on the simulator's context (the domain's ports and
 * what the backend shares across processes), then subscribed to the status
 * changes and the order cap.
 */
import type { DialectRenderer } from "../contract/provider-profile/render.ts";
import type { Journal } from "../http/journal.ts";
import type { Backend } from "./backend.ts";
import { DEFAULT_PLUGINS } from "./default-plugins.ts";
import type { EmbeddedDomain } from "./embedded-domain.ts";
import type { SimulatorContext, SimulatorPlugin, SimulatorPluginFactory } from "../domain/plugin-port.ts";
import type { SimulatorOptions } from "./simulator-options.ts";

/** The plugins built on the simulator's context, in order, each subscribed to what it hears. */
export async function buildPlugins(
  options: SimulatorOptions,
  backend: Backend,
  domain: EmbeddedDomain,
  journal: Journal,
  dialect: DialectRenderer,
): Promise<SimulatorPlugin[]> {
  const plugins: SimulatorPlugin[] = [];
  const context: SimulatorContext = {
    store: domain.store,
    clock: domain.clock,
    scheduler: domain.scheduler,
    ids: domain.ids,
    random: domain.random,
    statusTable: domain.statusTable,
    dialect,
    service: domain.service,
    journal,
    retention: domain.retention,
    timing: domain.timing,
    jobs: backend.jobs,
    plugins,
  };
  const defaults = options.defaultPlugins === false ? [] : DEFAULT_PLUGINS.map((entry) => entry(options, backend));
  const factories = [...defaults, ...(options.plugins ?? [])].filter(
    (factory): factory is SimulatorPluginFactory => factory !== undefined,
  );
  for (const factory of factories) plugins.push(await factory(context));
  for (const plugin of plugins) {
    if (plugin.events !== undefined) domain.events.subscribe(plugin.events);
    if (plugin.retention !== undefined) domain.retention.addGuard(plugin.retention);
  }
  return plugins;
}
