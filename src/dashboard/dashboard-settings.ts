/**
 * The dashboard plugin's settings, normalised once, where its defaults are
 * given: the page's folder is the built files' own (`dist/ui`), and the
 * evictions counter reads the simulator's order cap unless told otherwise.
 */
import type { SimulatorContext } from "../domain/plugin-port.ts";

export interface DashboardPluginOptions {
  /** Where the built page lives; default the package's `dist/ui`. */
  readonly uiDir?: string;
  /** Orders evicted so far, for the evictions counter; the order cap's own count when absent. */
  readonly evictions?: () => number | Promise<number>;
}

/**
 * @example
 * await dashboardSettings({}, context).evictions(); // the order cap's count of evicted orders
 */
export function dashboardSettings(options: DashboardPluginOptions, context: Pick<SimulatorContext, "retention">) {
  return Object.freeze({
    uiDir: options.uiDir,
    evictions: options.evictions ?? (async () => (await context.retention.stats()).evictedOrders),
  });
}
