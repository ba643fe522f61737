/**
 * The plugins every simulator gets unless `defaultPlugins: false`: one line
 * per built-in module (webhooks, scenarios). Each entry sees the simulator's
 * options and returns a plugin factory, or undefined to stay out.
 */
import { DASHBOARD_ADMIN_SPEC } from "../dashboard/admin-spec.ts";
import { createDashboardPlugin } from "../dashboard/dashboard-plugin.ts";
import type { AdminExtensionSpec } from "../domain/plugin-port.ts";
import { SCENARIO_ADMIN_SPEC } from "../scenarios/admin-spec.ts";
import { createScenariosPlugin } from "../scenarios/scenarios-plugin.ts";
import { DELIVERY_ADMIN_SPEC } from "../webhooks/admin-spec.ts";
import { createWebhookPlugin } from "../webhooks/webhook-plugin.ts";
import type { SimulatorPluginFactory } from "../domain/plugin-port.ts";
import type { Backend } from "./backend.ts";
import type { SimulatorOptions } from "./simulator-options.ts";

/** What the backend shares across processes on a Redis store, each handed to the plugin it belongs to. */
type SharedByBackend = Pick<Backend, "deliveryStore" | "attemptCounters">;

type DefaultPlugin = (options: SimulatorOptions, shared: SharedByBackend) => SimulatorPluginFactory | undefined;

export const DEFAULT_PLUGINS: readonly DefaultPlugin[] = [
  // Webhooks: signed deliveries with retries; `webhooks: false` leaves them out.
  (options, shared) =>
    options.webhooks === false
      ? undefined
      : createWebhookPlugin({
          ...options.webhooks,
          deliveryStore: options.webhooks?.deliveryStore ?? shared.deliveryStore,
        }),
  // Scenarios: the library, magic test accounts, X-Sim-Scenario; `scenarios: false` leaves them out.
  (options, shared) =>
    options.scenarios === false
      ? undefined
      : createScenariosPlugin({
          ...(shared.attemptCounters === undefined ? {} : { counters: shared.attemptCounters }),
          ...options.scenarios,
          ...(options.seed === undefined || options.scenarios?.seed !== undefined ? {} : { seed: options.seed }),
          ...(options.timing === undefined ? {} : { defaultOutcomeTiming: options.timing }),
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
