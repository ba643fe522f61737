/**
 * The dashboard plugin: the page at `/_sim/ui` (served without a token, its
 * data calls send the admin token from the URL fragment), the live event
 * stream, the schedule summary and the Prometheus metrics. The plugin's
 * request and status listeners feed the metrics and the event stream.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { extname, join, relative, sep } from "node:path";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { DEFAULT_ORDER_LIMITS } from "../contract/public-schemas.ts";
import { ADMIN_ROUTES } from "../contract/routes/admin-routes.ts";
import { publicRoutes } from "../contract/routes/public-routes.ts";
import type { RouteDeclaration } from "../contract/routes/route.ts";
import { isFinalStatus, type StatusTable } from "../contract/status-codes.ts";
import { ORDER_STEP_JOB } from "../domain/lifecycle.ts";
import type { Clock, Scheduler, Store } from "../domain/ports.ts";
import type { StatusChange } from "../domain/service-types.ts";
import { formatTiming, type Timing } from "../domain/timing.ts";
import type { JournalRecord } from "../http/journal.ts";
import { presentAdminOrder } from "../http/presenters.ts";
import { PACKAGE_ROOT } from "../package-root.ts";
import { SCENARIO_ADMIN_SPEC } from "../scenarios/admin-spec.ts";
import type { AdminHandler, SimulatorContext, SimulatorPlugin, SimulatorPluginFactory } from "../domain/plugin-port.ts";
import { DELIVERY_ADMIN_SPEC } from "../webhooks/admin-spec.ts";
import type { WebhookPlugin } from "../webhooks/webhook-plugin.ts";
import { DASHBOARD_ADMIN_SPEC, type ScheduleSummary } from "./admin-spec.ts";

/**
 * The dashboard plugin's settings, normalised once, where its defaults are
 * given: the page's folder is the built files' own (`dist/ui`), and the
 * evictions counter reads the simulator's order cap unless told otherwise.
 */

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
function dashboardSettings(options: DashboardPluginOptions, context: Pick<SimulatorContext, "retention">) {
  return Object.freeze({
    uiDir: options.uiDir,
    evictions: options.evictions ?? (async () => (await context.retention.stats()).evictedOrders),
  });
}

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

// The simulator's Prometheus metrics (`GET /_sim/metrics`), in a registry
// of their own so an application that embeds the simulator keeps its global
// prom-client registry to itself. Request metrics come from the journal's
// record hook (the plugin's `onRequest`); the state gauges (orders, pending
// jobs, webhook attempts) are read when scraped.
//
// The `route` label of the request metrics: the declared route a path
// matched (`/v1/airtime/{reference}`), never the path itself, so a label's
// values stay few however many references and ids pass through.

const escape = (text: string): string => text.replace(/[.*+?^$()|[\]\\]/g, "\\$&");

/** Paths no declaration names are counted as this route. */
const OTHER_ROUTE = "other";

/**
 * @example
 * const label = routeLabeller([{ method: "get", path: "/v1/airtime/{reference}", operation }]);
 * label("/v1/airtime/order-1?x=1"); // "/v1/airtime/{reference}"
 */
export function routeLabeller(
  routes: readonly RouteDeclaration[],
  prefixes: readonly string[] = [],
): (path: string) => string {
  const templates = [...new Set(routes.map((r) => r.path))];
  const patterns = templates.map((template) => ({
    template,
    regex: new RegExp(
      `^${template
        .split(/\{[^}]+\}/)
        .map(escape)
        .join("[^/]+")}$`,
    ),
  }));
  // Every request is labelled: a path with no parameter is found in one lookup, unless a template
  // listed before its own also matches it (the first match wins, as in the scan below).
  const literals = new Map<string, string>();
  patterns.forEach(({ template }, index) => {
    const shadowed = patterns.slice(0, index).some((earlier) => earlier.regex.test(template));
    if (!template.includes("{") && !shadowed) literals.set(template, template);
  });
  return (path) => {
    const query = path.indexOf("?");
    const bare = query < 0 ? path : path.slice(0, query);
    const literal = literals.get(bare);
    if (literal !== undefined) return literal;
    const match = patterns.find((p) => p.regex.test(bare));
    if (match !== undefined) return match.template;
    return prefixes.find((prefix) => bare === prefix || bare.startsWith(`${prefix}/`)) ?? OTHER_ROUTE;
  };
}

/** Webhook attempts retained by the webhook plugin, by outcome. */
type AttemptCounts = () => Promise<Readonly<Record<string, number>>>;

interface MetricsSources {
  readonly store: Store;
  readonly scheduler: Scheduler;
  /** Maps a request path to its route template (`routeLabeller`, above). */
  readonly routeOf: (path: string) => string;
  readonly webhookAttempts: AttemptCounts;
  /** Orders the store has evicted so far (0 while the store evicts none). */
  readonly evictions: () => number | Promise<number>;
}

export interface SimulatorMetrics {
  readonly registry: Registry;
  recordRequest(request: JournalRecord): void;
  recordStatusChange(change: StatusChange): void;
  /** The exposition text and its content type. */
  render(): Promise<{ contentType: string; body: string }>;
}

const PREFIX = "airtime_sim_";

/** The metrics read from the simulator's state at each scrape (prom-client's `collect`), not counted as it goes. */
function registerStateMetrics(sources: MetricsSources, registers: Registry[]): void {
  new Gauge({
    name: `${PREFIX}orders`,
    help: "Orders the store holds, by current status.",
    labelNames: ["status"] as const,
    registers,
    async collect() {
      this.reset();
      for (const [status, count] of await sources.store.countOrdersByStatus())
        this.set({ status: String(status) }, count);
    },
  });
  new Gauge({
    name: `${PREFIX}orders_retained`,
    help: "Orders the store holds, all statuses.",
    registers,
    async collect() {
      this.set(await sources.store.countOrders());
    },
  });
  new Gauge({
    name: `${PREFIX}pending_events`,
    help: "Scheduled jobs not yet run (status steps, webhook attempts, key expiries).",
    registers,
    async collect() {
      this.set(await sources.scheduler.size());
    },
  });
  new Gauge({
    name: `${PREFIX}webhook_attempts`,
    help: "Webhook attempts the simulator holds, by outcome (a reset forgets them).",
    labelNames: ["outcome"] as const,
    registers,
    async collect() {
      this.reset();
      for (const [outcome, count] of Object.entries(await sources.webhookAttempts())) this.set({ outcome }, count);
    },
  });
  let evictionsSeen = 0;
  new Counter({
    name: `${PREFIX}order_evictions_total`,
    help: "Orders the store has evicted to stay within its retention limit.",
    registers,
    async collect() {
      const now = await sources.evictions();
      if (now > evictionsSeen) this.inc(now - evictionsSeen);
      evictionsSeen = Math.max(evictionsSeen, now);
    },
  });
}

function createSimulatorMetrics(sources: MetricsSources): SimulatorMetrics {
  const registry = new Registry();
  const registers = [registry];
  const requests = new Counter({
    name: `${PREFIX}http_requests_total`,
    help:
      "HTTP requests answered, by API (public or admin: /_sim, the dashboard's own calls included), " +
      "method, declared route and status (0: dropped before an answer).",
    labelNames: ["api", "method", "route", "status"] as const,
    registers,
  });
  const latency = new Histogram({
    name: `${PREFIX}http_request_duration_seconds`,
    help: "Time from a request's arrival to the end of its response, by method and declared route.",
    labelNames: ["method", "route"] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers,
  });
  const placed = new Counter({
    name: `${PREFIX}orders_placed_total`,
    help: "Orders placed through POST /v1/airtime, their response dropped or failed or not (replays not counted).",
    registers,
  });
  const transitions = new Counter({
    name: `${PREFIX}order_transitions_total`,
    help: "Order status changes after placing, by new status and whether it is final.",
    labelNames: ["status", "final"] as const,
    registers,
  });
  registerStateMetrics(sources, registers);

  return {
    registry,
    recordRequest(request) {
      const route = sources.routeOf(request.path);
      // Told apart by path, not route: an admin path no route declares is still admin traffic.
      const api = request.path === "/_sim" || request.path.startsWith("/_sim/") ? "admin" : "public";
      requests.inc({ api, method: request.method, route, status: String(request.status) });
      latency.observe({ method: request.method, route }, request.durationMs / 1000);
      // Counted on the commit, not on the answer: an order whose response a scenario lost exists all the same.
      if (request.placed === true) placed.inc();
    },
    recordStatusChange(change) {
      transitions.inc({ status: String(change.order.status), final: String(change.final) });
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

/**
 * The dashboard's built files (`dist/ui`, made by `npm run build`), served
 * from a list taken once at start: only files the build wrote can be asked
 * for, whatever the path says.
 */

const UI_DIR = join(PACKAGE_ROOT, "dist", "ui");

const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".json": "application/json",
  ".png": "image/png",
  ".woff2": "font/woff2",
};

interface StaticAsset {
  readonly body: Buffer;
  readonly type: string;
  /** Hashed asset names never change content, so they may be cached for good. */
  readonly immutable: boolean;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Assets by their path under `/_sim/ui/` (`index.html`, `assets/index-3f2a.js`); empty when not built. */
function loadStaticAssets(dir: string = UI_DIR): ReadonlyMap<string, StaticAsset> {
  const assets = new Map<string, StaticAsset>();
  if (!existsSync(dir)) return assets;
  for (const file of filesUnder(dir)) {
    const name = relative(dir, file).split(sep).join("/");
    assets.set(name, {
      body: readFileSync(file),
      type: TYPES[extname(file)] ?? "application/octet-stream",
      immutable: name.startsWith("assets/"),
    });
  }
  return assets;
}

/**
 * What the clock will do next, for the dashboard's clock panel: pending
 * jobs, and when the earliest order step and webhook attempt are due.
 */

interface ScheduleSources {
  readonly clock: Clock;
  readonly store: Store;
  readonly scheduler: Scheduler;
  readonly statusTable: StatusTable;
  readonly timing: Timing;
  /** Due times (simulator ms) of scheduled webhook attempts. */
  readonly webhookDueTimes: () => Promise<number[]>;
}

const earliest = (times: readonly (number | undefined)[]): string | null => {
  const known = times.filter((t): t is number => t !== undefined);
  return known.length === 0 ? null : new Date(Math.min(...known)).toISOString();
};

/** A standard normal's 95th percentile: a lognormal's 5 %–95 % band is its median times e^(∓1.645 σ). */
const Z95 = 1.6449;

/** Where most pending → final times fall under `timing`: its 5th to 95th percentile (all of a fixed or uniform one). */
function timingBand(timing: Timing): { lowMs: number; highMs: number } {
  switch (timing.kind) {
    case "fixed":
      return { lowMs: timing.ms, highMs: timing.ms };
    case "uniform":
      return { lowMs: timing.minMs, highMs: timing.maxMs };
    case "lognormal":
      return {
        lowMs: Math.round(timing.medianMs * Math.exp(-Z95 * timing.sigma)),
        highMs: Math.round(timing.medianMs * Math.exp(Z95 * timing.sigma)),
      };
    case "quantiles":
      return { lowMs: timing.points[0]?.ms ?? 0, highMs: timing.points.at(-1)?.ms ?? 0 };
  }
}

/** Orders in a pending-class status, counted by status without reading an order (the dashboard asks once a second). */
async function countPending(store: Store, statusTable: StatusTable): Promise<number> {
  let pending = 0;
  for (const [status, count] of await store.countOrdersByStatus()) {
    if (!isFinalStatus(statusTable, status)) pending += count;
  }
  return pending;
}

/**
 * The next order step is asked of the scheduler, not read from pending
 * orders: a final order may still have a step to come (a success reversed
 * later), and only the scheduler knows every step it holds.
 */
async function summariseSchedule(sources: ScheduleSources): Promise<ScheduleSummary> {
  return {
    mode: sources.clock.virtual === true ? "virtual" : "real",
    now: new Date(sources.clock.now()).toISOString(),
    pendingEvents: await sources.scheduler.size(),
    pendingOrders: await countPending(sources.store, sources.statusTable),
    nextOrderStepAt: earliest([await sources.scheduler.nextDueAt(ORDER_STEP_JOB)]),
    configuredTiming: { text: formatTiming(sources.timing), ...timingBand(sources.timing) },
    nextWebhookAttemptAt: earliest(await sources.webhookDueTimes()),
  };
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
    const settings = dashboardSettings(options, context);
    const webhooks = () => deliveriesOf(context);
    const metrics = createSimulatorMetrics({
      store: context.store,
      scheduler: context.scheduler,
      routeOf: routeLabeller(
        [...publicRoutes(DEFAULT_ORDER_LIMITS), ...ADMIN_ROUTES, ...DELIVERY_ADMIN_SPEC, ...SCENARIO_ADMIN_SPEC],
        ["/_sim/ui", "/_sim/events", "/_sim/schedule", "/_sim/metrics"],
      ),
      webhookAttempts: () => attemptsByOutcome(webhooks()),
      evictions: settings.evictions,
    });
    const stream = createEventStream();
    // Read on the first page request, not at start: most simulators (tests, load runs) never serve the page,
    // and the files include the API reference's 1 MB bundle.
    let loaded: ReadonlyMap<string, StaticAsset> | undefined;
    const asset = (path: string): StaticAsset | undefined => (loaded ??= loadStaticAssets(settings.uiDir)).get(path);

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
