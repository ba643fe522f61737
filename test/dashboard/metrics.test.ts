// /_sim/metrics as a Prometheus server reads it: text that parses, behind the
// admin token, whose counters and gauges follow the orders placed and finalised.
// Over sockets only: the webhook receiver is an express app too, which in-process injection would rewire.
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterEach, describe, expect, it } from "vitest";
import { createDashboardPlugin, routeLabeller } from "../../src/dashboard/dashboard-plugin.ts";
import { createScenariosPlugin } from "../../src/scenarios/scenarios-plugin.ts";
import type { Simulator } from "../../src/simulator/create-simulator.ts";
import { createWebhookPlugin } from "../../src/webhooks/webhook-plugin.ts";
import { admin, expectProblem, orderBody, placeOrder, send, startSimulatorOnPort } from "../support/http.ts";
import { startWebhookHandler, type WebhookHandler } from "../support/webhook-handler.ts";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

let sim: Simulator | undefined;
let receiver: WebhookHandler | undefined;
afterEach(async () => {
  await sim?.close();
  await receiver?.close();
  sim = undefined;
  receiver = undefined;
});

async function scrape(target: Simulator) {
  const reply = await admin(target, "/metrics");
  expect(reply.status).toBe(200);
  expect(reply.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
  return Object.assign(parsePrometheusTextFormat(reply.text), { text: reply.text });
}

/** The sample of `name` whose labels include `labels`, as a number; 0 when absent. */
function value(families: ReturnType<typeof parsePrometheusTextFormat>, name: string, labels = {}): number {
  const family = families.find((f) => f.name === name);
  const sample = family?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return sample === undefined ? 0 : Number(sample.value ?? sample.count);
}

describe("/_sim/metrics", () => {
  it("moves as orders are placed and finalised", async () => {
    receiver = await startWebhookHandler(SECRET);
    sim = await startSimulatorOnPort({
      demo: { token: "demo-token-for-tests", webhook: { url: receiver.url, secrets: [SECRET] } },
      timing: "2s",
      plugins: [createWebhookPlugin({ schedule: "0", jitter: 0 }), createDashboardPlugin()],
    });
    const before = await scrape(sim);
    expect(value(before, "airtime_sim_orders_placed_total")).toBe(0);
    expect(value(before, "airtime_sim_order_evictions_total")).toBe(0);

    expect((await placeOrder(sim, orderBody({ reference: "m-1" }))).status).toBe(200);
    expect((await placeOrder(sim, orderBody({ reference: "m-2" }))).status).toBe(200);
    const placed = await scrape(sim);
    expect(value(placed, "airtime_sim_orders_placed_total")).toBe(2);
    expect(value(placed, "airtime_sim_orders", { status: "0" })).toBe(2);
    expect(value(placed, "airtime_sim_orders_retained")).toBe(2);
    expect(value(placed, "airtime_sim_pending_events")).toBeGreaterThanOrEqual(2);
    expect(
      value(placed, "airtime_sim_http_requests_total", {
        api: "public",
        method: "POST",
        route: "/v1/airtime",
        status: "200",
      }),
    ).toBe(2);
    // The parser keeps no labels on histogram samples: the count line is read as it is.
    expect(placed.text).toContain(
      'airtime_sim_http_request_duration_seconds_count{method="POST",route="/v1/airtime"} 2\n',
    );

    await sim.clock.advance(2_000);
    const final = await scrape(sim);
    expect(value(final, "airtime_sim_order_transitions_total", { status: "20", final: "true" })).toBe(2);
    expect(value(final, "airtime_sim_orders", { status: "20" })).toBe(2);
    expect(value(final, "airtime_sim_orders", { status: "0" })).toBe(0);
    expect(value(final, "airtime_sim_webhook_attempts", { outcome: "delivered" })).toBe(2);
    // Earlier scrapes are admin requests too, counted under their declared route, apart from the public API.
    expect(
      value(final, "airtime_sim_http_requests_total", {
        api: "admin",
        method: "GET",
        route: "/_sim/metrics",
        status: "200",
      }),
    ).toBe(2);
    const publicRequests = final
      .find((f) => f.name === "airtime_sim_http_requests_total")
      ?.metrics.filter((m) => m.labels?.api === "public")
      .reduce((sum, m) => sum + Number(m.value), 0);
    expect(publicRequests).toBe(2);
  });

  it("counts an order committed before its response was lost or failed, and no replay", async () => {
    sim = await startSimulatorOnPort({ plugins: [createScenariosPlugin({ seed: 1 }), createDashboardPlugin()] });
    const key = { "idempotency-key": "lost-response-key" };
    const lost = orderBody({ reference: "m-lost", account: "0700000007" });
    await expect(placeOrder(sim, lost, key)).rejects.toThrow();
    expect((await placeOrder(sim, lost, key)).headers.get("idempotent-replayed")).toBe("true");
    const failed = await placeOrder(sim, orderBody({ reference: "m-500" }), { "x-sim-scenario": "error-after-commit" });
    expect(failed.status).toBe(500);
    const scraped = await scrape(sim);
    expect(value(scraped, "airtime_sim_orders_retained")).toBe(2);
    expect(value(scraped, "airtime_sim_orders_placed_total")).toBe(2);
  });

  it("needs the admin token", async () => {
    sim = await startSimulatorOnPort({ plugins: [createDashboardPlugin()] });
    expectProblem(await send(sim, "/_sim/metrics"), 401, "missing_token");
  });

  it("counts the orders the order cap evicts, and retains no more than the cap", async () => {
    sim = await startSimulatorOnPort({ maxOrders: 3, timing: "1s", plugins: [createDashboardPlugin()] });
    for (const reference of ["e-1", "e-2", "e-3"]) {
      expect((await placeOrder(sim, orderBody({ reference }))).status).toBe(200);
    }
    await sim.clock.advance(1_000);
    expect(value(await scrape(sim), "airtime_sim_order_evictions_total")).toBe(0);
    // Over the cap: the oldest final orders make room.
    for (const reference of ["e-4", "e-5"]) {
      expect((await placeOrder(sim, orderBody({ reference }))).status).toBe(200);
    }
    const after = await scrape(sim);
    expect(value(after, "airtime_sim_order_evictions_total")).toBeGreaterThanOrEqual(2);
    expect(value(after, "airtime_sim_orders_retained")).toBeLessThanOrEqual(3);
  });

  it("counts evictions from the function it is given", async () => {
    let evicted = 0;
    sim = await startSimulatorOnPort({ plugins: [createDashboardPlugin({ evictions: () => evicted })] });
    evicted = 3;
    expect(value(await scrape(sim), "airtime_sim_order_evictions_total")).toBe(3);
    evicted = 5;
    expect(value(await scrape(sim), "airtime_sim_order_evictions_total")).toBe(5);
  });
});

describe("the route label", () => {
  const label = routeLabeller(
    [
      { method: "get", path: "/v1/airtime/{reference}", operation: { responses: {} } },
      { method: "post", path: "/v1/airtime", operation: { responses: {} } },
    ],
    ["/_sim/ui"],
  );

  it("names the declared route, not the path", () => {
    expect(label("/v1/airtime/order-1?verbose=1")).toBe("/v1/airtime/{reference}");
    expect(label("/v1/airtime")).toBe("/v1/airtime");
    expect(label("/_sim/ui/assets/index-1a2b.js")).toBe("/_sim/ui");
    expect(label("/v1/airtime/a/b")).toBe("other");
    expect(label("/v1/airtime?x=1")).toBe("/v1/airtime");
  });

  it("keeps the first declared match when a template with a parameter comes before a plain path it covers", () => {
    const first = routeLabeller([
      { method: "get", path: "/orders/{id}", operation: { responses: {} } },
      { method: "get", path: "/orders/export", operation: { responses: {} } },
      { method: "get", path: "/orders", operation: { responses: {} } },
    ]);
    expect(first("/orders/export")).toBe("/orders/{id}");
    expect(first("/orders")).toBe("/orders");
  });
});
