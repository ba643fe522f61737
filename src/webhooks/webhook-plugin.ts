/**
 * Webhooks as a simulator plugin: status changes in, signed deliveries out,
 * `/_sim/deliveries…` on the admin API, the clock's `advance()` settling
 * attempts in flight, and the webhooks' say in the order cap.
 */
import type { SimulatorPlugin, SimulatorPluginFactory } from "../domain/plugin-port.ts";
import { createDeliveryAdmin } from "./admin-routes.ts";
import { DELIVERY_ADMIN_SPEC } from "./admin-spec.ts";
import { createWebhookDispatcher, type WebhookDispatcher } from "./dispatcher.ts";
import type { WebhookDispatcherOptions } from "./webhook-settings.ts";
import { createMemoryDeliveryStore, type MemoryDeliveryStore, parseDeliveryState } from "./memory-delivery-store.ts";

export type WebhookPluginOptions = WebhookDispatcherOptions;

const WEBHOOK_PLUGIN_NAME = "webhooks";

/** The plugin, with its dispatcher reachable for in-process tests. */
export interface WebhookPlugin extends SimulatorPlugin {
  readonly dispatcher: WebhookDispatcher;
  /** Forgets one customer's deliveries (or all) and cancels their scheduled attempts. */
  reset(customerId?: string): Promise<void>;
}

/**
 * @example
 * const sim = await createSimulator({
 *   clock: "virtual",
 *   webhooks: { schedule: "0,100ms,1s", timeout: "500ms", jitter: 0 },
 * });
 * // or, with the built-in plugins off: createSimulator({ defaultPlugins: false, plugins: [createWebhookPlugin()] })
 */
export function createWebhookPlugin(options: WebhookPluginOptions = {}): SimulatorPluginFactory {
  return (context): WebhookPlugin => {
    // Kept in memory unless another store is given (the simulator's backend gives the one
    // every instance on a Redis store shares); only the memory one is saved by `--state-file`.
    const given = options.deliveryStore;
    const memory: MemoryDeliveryStore | undefined = given === undefined ? createMemoryDeliveryStore() : undefined;
    const dispatcher = createWebhookDispatcher(context, { ...options, deliveryStore: memory ?? given });
    return {
      name: WEBHOOK_PLUGIN_NAME,
      dispatcher,
      events: dispatcher.events,
      retention: dispatcher.retention,
      admin: createDeliveryAdmin(dispatcher),
      adminSpec: DELIVERY_ADMIN_SPEC,
      async beforeResponse(order) {
        if (order.webhookFaults?.beforeResponse === true) await dispatcher.sendNow(order.id);
      },
      // The dispatcher's own methods, handed over as they are: the plugin adds no step to settling.
      settle: dispatcher.settle.bind(dispatcher),
      reset: (customerId) => dispatcher.reset(customerId),
      async close(deadline) {
        const left = await dispatcher.shutdown(deadline);
        return { "undelivered webhooks": left.undelivered, "webhook attempts cut off": left.attemptsCutOff };
      },
      ...(memory === undefined
        ? {}
        : {
            state: {
              save: async () => memory.exportState(),
              async load(saved) {
                await memory.importState(parseDeliveryState(saved));
                await dispatcher.resume();
              },
            },
          }),
    };
  };
}

/** The webhook plugin among a simulator's plugins, if it is there. */
export function findWebhookPlugin(plugins: readonly SimulatorPlugin[]): WebhookPlugin | undefined {
  return plugins.find(
    (plugin): plugin is WebhookPlugin => plugin.name === WEBHOOK_PLUGIN_NAME && "dispatcher" in plugin,
  );
}
