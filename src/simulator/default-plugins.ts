/**
 * The simulator's plugins: the ones every simulator gets unless
 * `defaultPlugins: false` (one line per built-in module: webhooks,
 * scenarios, the dashboard), then the ones its options add, each built on
 * the simulator's context (the domain's ports and what the backend shares
 * across processes) and subscribed to the status changes and the order cap.
 */
import type { DialectRenderer } from "../contract/provider-profile/render.ts";
import { DASHBOARD_ADMIN_SPEC } from "../dashboard/admin-spec.ts";
import { createDashboardPlugin } from "../dashboard/dashboard-plugin.ts";
import type {
  AdminExtensionSpec,
  SimulatorContext,
  SimulatorPlugin,
  SimulatorPluginFactory,
} from "../domain/plugin-port.ts";
import type { Journal } from "../http/journal.ts";
import { SCENARIO_ADMIN_SPEC } from "../scenarios/admin-spec.ts";
import { createScenariosPlugin } from "../scenarios/scenarios-plugin.ts";
import { DELIVERY_ADMIN_SPEC } from "../webhooks/admin-spec.ts";
import { createWebhookPlugin } from "../webhooks/webhook-plugin.ts";
import type { Backend } from "./backend.ts";
import type { EmbeddedDomain } from "./embedded-domain.ts";
import type { SimulatorSettings } from "./simulator-settings.ts";

/** What the backend shares across processes on a Redis store, each handed to the plugin it belongs to. */
type SharedByBackend = Pick<Backend, "deliveryStore" | "attemptCounters">;

type DefaultPlugin = (settings: SimulatorSettings, shared: SharedByBackend) => SimulatorPluginFactory | undefined;

const DEFAULT_PLUGINS: readonly DefaultPlugin[] = [
  // Webhooks: signed deliveries with retries; `webhooks: false` leaves them out. A delivery store of the
  // options' own wins over the one the backend shares.
  (settings, shared) =>
    settings.webhooks === false
      ? undefined
      : createWebhookPlugin({
          ...(shared.deliveryStore === undefined ? {} : { deliveryStore: shared.deliveryStore }),
          ...settings.webhooks,
        }),
  // Scenarios: the library, magic test accounts, X-Sim-Scenario; `scenarios: false` leaves them out.
  (settings, shared) =>
    settings.scenarios === false
      ? undefined
      : createScenariosPlugin({
          ...(shared.attemptCounters === undefined ? {} : { counters: shared.attemptCounters }),
          ...settings.scenarios,
          ...(settings.seed === undefined || settings.scenarios?.seed !== undefined ? {} : { seed: settings.seed }),
          ...(settings.timing === undefined ? {} : { defaultOutcomeTiming: settings.timing }),
        }),
  // The dashboard at /_sim/ui, its event stream and /_sim/metrics: always on (a counter and a histogram per request).
  () => createDashboardPlugin(),
];

/**
 * The `adminSpec` of each default plugin, importable without a running
 * simulator: `spec/admin.openapi.yaml` is generated from these.
 */
export const DEFAULT_ADMIN_SPECS: readonly AdminExtensionSpec[] = [
  DELIVERY_ADMIN_SPEC,
  SCENARIO_ADMIN_SPEC,
  DASHBOARD_ADMIN_SPEC,
];

/** The plugins built on the simulator's context, in order, each subscribed to what it hears. */
export async function buildPlugins(
  settings: SimulatorSettings,
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
  const defaults = settings.defaultPlugins ? DEFAULT_PLUGINS.map((entry) => entry(settings, backend)) : [];
  const factories = [...defaults, ...settings.plugins].filter(
    (factory): factory is SimulatorPluginFactory => factory !== undefined,
  );
  for (const factory of factories) plugins.push(await factory(context));
  for (const plugin of plugins) {
    if (plugin.events !== undefined) domain.events.subscribe(plugin.events);
    if (plugin.retention !== undefined) domain.retention.addGuard(plugin.retention);
  }
  return plugins;
}
