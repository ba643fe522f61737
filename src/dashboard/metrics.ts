/**
 * The simulator's Prometheus metrics (`GET /_sim/metrics`), in a registry of
 * their own so an application that embeds the simulator keeps its global
 * prom-client registry to itself. Request metrics come from the journal's
 * record hook; the state gauges (orders, pending jobs, webhook attempts) are
 * read when scraped.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Scheduler, Store } from "../domain/ports.ts";
import type { StatusChange } from "../domain/service-types.ts";
import type { JournalRecord } from "../http/journal.ts";
import type { RouteDeclaration } from "../contract/routes/route.ts";

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
export type AttemptCounts = () => Promise<Readonly<Record<string, number>>>;

export interface MetricsSources {
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

export function createSimulatorMetrics(sources: MetricsSources): SimulatorMetrics {
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
