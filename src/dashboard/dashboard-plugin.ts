/**
 * The dashboard plugin: the page at `/_sim/ui` (served without a token, its
 * data calls send the admin token from the URL fragment), the live event
 * stream, the schedule summary and the Prometheus metrics.
 */
import { DEFAULT_ORDER_LIMITS } from "../contract/public-schemas.ts";
import { ADMIN_ROUTES } from "../contract/routes/admin-routes.ts";
import { publicRoutes } from "../contract/routes/public-routes.ts";
import { presentAdminOrder } from "../http/presenters.ts";
import { SCENARIO_ADMIN_SPEC } from "../scenarios/admin-spec.ts";
import type { AdminHandler, SimulatorPlugin, SimulatorPluginFactory } from "../domain/plugin-port.ts";
import { DELIVERY_ADMIN_SPEC } from "../webhooks/admin-spec.ts";
import type { WebhookPlugin } from "../webhooks/webhook-plugin.ts";
import { DASHBOARD_ADMIN_SPEC } from "./admin-spec.ts";
import { createSimulatorMetrics, routeLabeller, type SimulatorMetrics } from "./metrics.ts";
import { summariseSchedule } from "./schedule-summary.ts";
import { loadStaticAssets, type StaticAsset } from "./static-assets.ts";
import type { ServerResponse } from "node:http";

// The dashboard's link as `serve` prints it: the admin token rides in the
// URL fragment, which browsers never send, so it stays out of every log.

export const DASHBOARD_PLUGIN_NAME = "dashboard";

/** The dashboard's page: its admin extension names it as its home, where `GET /` sends a browser. */
const DASHBOARD_PATH = "/_sim/ui";

/**
 * @example
 * dashboardLink("http://127.0.0.1:4010", "adm_x"); // "http://127.0.0.1:4010/_sim/ui#token=adm_x"
 */
export function dashboardLink(baseUrl: string, adminToken: string): string {
  return `${baseUrl}${DASHBOARD_PATH}#token=${encodeURIComponent(adminToken)}`;
}

// The live event stream behind `GET /_sim/events`: each open response gets
// every event as a Server-Sent Event. Browsers read it with `fetch`
// streaming, which can send the admin token in a header (EventSource
// cannot, and a token in the URL would reach logs).

const KEEP_ALIVE_MS = 15_000;

export interface EventStream {
  /** Holds the response open and sends it every event until it closes. */
  attach(res: ServerResponse): void;
  /** Sends `data()` to every open stream; with none open, `data` is not even called (it runs for every order). */
  send(event: string, data: () => unknown): void;
  /** Ends every open stream (the simulator is closing; clients reconnect elsewhere or give up). */
  endAll(): void;
}

function createEventStream(): EventStream {
  const open = new Set<ServerResponse>();
  return {
    attach(res) {
      res.writeHead(200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store",
        // Reverse proxies that buffer would hold events back.
        "x-accel-buffering": "no",
      });
      res.write(": connected\n\n");
      open.add(res);
      const keepAlive = setInterval(() => res.write(": keep-alive\n\n"), KEEP_ALIVE_MS);
      keepAlive.unref();
      res.on("close", () => {
        clearInterval(keepAlive);
        open.delete(res);
      });
    },
    send(event, data) {
      if (open.size === 0) return;
      const frame = `event: ${event}\ndata: ${JSON.stringify(data())}\n\n`;
      for (const res of open) res.write(frame);
    },
    endAll() {
      for (const res of open) res.end();
      open.clear();
    },
  };
}

export interface DashboardPluginOptions {
  /** Where the built page lives; default the package's `dist/ui`. */
  readonly uiDir?: string;
  /** Orders evicted so far, for the evictions counter; the order cap's own count when absent. */
  readonly evictions?: () => number | Promise<number>;
}

export interface DashboardPlugin extends SimulatorPlugin {
  readonly metrics: SimulatorMetrics;
}

function isWebhookPlugin(plugin: SimulatorPlugin): plugin is WebhookPlugin {
  return "dispatcher" in plugin;
}

function sendAsset(res: Parameters<AdminHandler>[1], asset: StaticAsset | undefined): void {
  if (asset === undefined) {
    res.status(404).type("text/plain").send("The dashboard is not built: run `npm run build`.\n");
    return;
  }
  res.setHeader("content-type", asset.type);
  res.setHeader("cache-control", asset.immutable ? "public, max-age=31536000, immutable" : "no-cache");
  res.send(asset.body);
}

type DeliveryLog = NonNullable<ReturnType<typeof deliveriesOf>>;

function deliveriesOf(context: Parameters<SimulatorPluginFactory>[0]) {
  return context.plugins.find(isWebhookPlugin)?.dispatcher.deliveries;
}

/** Webhook attempts so far, by outcome; none without the webhook plugin. */
async function attemptsByOutcome(deliveries: DeliveryLog | undefined): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  if (deliveries === undefined) return counts;
  for (const delivery of await deliveries.list()) {
    for (const attempt of await deliveries.attempts(delivery.id)) {
      counts[attempt.outcome] = (counts[attempt.outcome] ?? 0) + 1;
    }
  }
  return counts;
}

/**
 * @example
 * const sim = await createSimulator({ plugins: [createDashboardPlugin()], defaultPlugins: true });
 */
export function createDashboardPlugin(options: DashboardPluginOptions = {}): SimulatorPluginFactory {
  return (context): DashboardPlugin => {
    const webhooks = () => deliveriesOf(context);
    const metrics = createSimulatorMetrics({
      store: context.store,
      scheduler: context.scheduler,
      routeOf: routeLabeller(
        [...publicRoutes(DEFAULT_ORDER_LIMITS), ...ADMIN_ROUTES, ...DELIVERY_ADMIN_SPEC, ...SCENARIO_ADMIN_SPEC],
        ["/_sim/ui", "/_sim/events", "/_sim/schedule", "/_sim/metrics"],
      ),
      webhookAttempts: () => attemptsByOutcome(webhooks()),
      evictions: options.evictions ?? (async () => (await context.retention.stats()).evictedOrders),
    });
    const stream = createEventStream();
    // Read on the first page request, not at start: most simulators (tests, load runs) never serve the page,
    // and the files include the API reference's 1 MB bundle.
    let loaded: ReadonlyMap<string, StaticAsset> | undefined;
    const asset = (path: string): StaticAsset | undefined => (loaded ??= loadStaticAssets(options.uiDir)).get(path);

    return {
      name: DASHBOARD_PLUGIN_NAME,
      metrics,
      events: {
        async statusChanged(change) {
          // Counted and shown when it was first announced.
          if (change.repeated === true) return;
          metrics.recordStatusChange(change);
          stream.send("order", () => presentAdminOrder(change.order));
        },
      },
      onRequest(request) {
        metrics.recordRequest(request);
        // Only public API traffic: the dashboard's own admin calls would echo back as events.
        if (!request.path.startsWith("/_sim")) stream.send("request", () => request);
      },
      adminSpec: DASHBOARD_ADMIN_SPEC,
      admin: {
        name: DASHBOARD_PLUGIN_NAME,
        home: { name: "dashboard", path: DASHBOARD_PATH },
        registerOpen(router) {
          router.get("/ui", (_req, res) => sendAsset(res, asset("index.html")));
          router.get("/ui/{*path}", (req, res) => {
            const path = ((req.params.path as string[] | undefined) ?? []).join("/");
            sendAsset(res, asset(path) ?? (path === "" ? asset("index.html") : undefined));
          });
        },
        register(router, kit) {
          router.get("/events", (_req, res) => stream.attach(res));
          router.all("/events", kit.methodNotAllowed(["GET"]));
          router.get("/schedule", async (_req, res) => {
            const deliveries = webhooks();
            res.json(
              await summariseSchedule({
                clock: context.clock,
                store: context.store,
                scheduler: context.scheduler,
                statusTable: context.statusTable,
                timing: context.timing,
                webhookDueTimes: async () =>
                  deliveries === undefined
                    ? []
                    : (await deliveries.list()).map((d) => d.nextAttemptAt).filter((t): t is number => t !== null),
              }),
            );
          });
          router.all("/schedule", kit.methodNotAllowed(["GET"]));
          router.get("/metrics", async (_req, res) => {
            const { contentType, body } = await metrics.render();
            res.setHeader("content-type", contentType);
            res.send(body);
          });
          router.all("/metrics", kit.methodNotAllowed(["GET"]));
        },
      },
      closing() {
        stream.endAll();
      },
    };
  };
}
