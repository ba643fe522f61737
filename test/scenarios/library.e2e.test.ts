/**
 * Every scenario shipped in `scenarios/`, over HTTP: loadable by name, and
 * doing what its comments promise. Half are chosen per request
 * (X-Sim-Scenario), half activated for the customer through the admin API.
 */
import { basename } from "node:path";
import { expect, test } from "vitest";
import { listLibraryFiles } from "../../src/scenarios/library.ts";
import { answered, type Harness, QA_CUSTOMER, QA_TOKEN, useHarness } from "./scenario-harness.ts";

const SAFARICOM = "0712345678";
const AIRTEL = "0733123456";

// On a port: some scenarios drop the connection.
const h = useHarness({ onPort: true });

interface Ctx {
  order(reference: string, options?: { key?: string; account?: string }): ReturnType<Harness["order"]>;
  status(reference: string): Promise<unknown>;
  orders(reference: string): Promise<number>;
}

const CHECKS: Record<string, (ctx: Ctx) => Promise<void>> = {
  "happy-path": async (ctx) => {
    expect(answered(await ctx.order("happy")).status).toBe(200);
    await h.sim.clock.advance(500);
    expect(await ctx.status("happy")).toBe(20);
  },
  "slow-provider": async (ctx) => {
    const reply = answered(await ctx.order("slow"));
    expect(reply.status).toBe(200);
    // lognormal(1.5 s, 0.6) from seed 1500: the first draw is well above a fast answer.
    expect(reply.elapsedMs).toBeGreaterThan(400);
    await h.sim.clock.advance(5_000);
    expect(await ctx.status("slow")).toBe(0);
    await h.sim.clock.advance(300_000);
    expect(await ctx.status("slow")).toBe(20);
    await h.inbox.waitFor("lib-slow", { status: 20 });
  },
  "operator-outage": async (ctx) => {
    const down = answered(await ctx.order("outage-airtel", { account: AIRTEL }));
    expect(down.status).toBe(503);
    expect(down.headers.get("retry-after")).toBe("30");
    expect(answered(await ctx.order("outage-safaricom")).status).toBe(200);
  },
  "flaky-gateway": async (ctx) => {
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push(answered(await ctx.order("flaky", { key: "flaky-key" })).status);
    expect(statuses).toEqual([503, 502, 200]);
    expect(await ctx.orders("flaky")).toBe(1);
  },
  "lost-responses": async (ctx) => {
    expect((await ctx.order("lost", { key: "lost-key" })).kind).toBe("network_error");
    const retry = answered(await ctx.order("lost", { key: "lost-key" }));
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await ctx.orders("lost")).toBe(1);
  },
  "insufficient-balance": async (ctx) => {
    const reply = answered(await ctx.order("poor"));
    expect(reply.status).toBe(402);
    expect(reply.body.status).toBe(7);
  },
  "stuck-pending": async (ctx) => {
    answered(await ctx.order("stuck"));
    await h.sim.clock.advance(3_600_000);
    expect(await ctx.status("stuck")).toBe(0);
  },
  reversals: async (ctx) => {
    answered(await ctx.order("reversal"));
    await h.sim.clock.advance(1_000);
    expect(await ctx.status("reversal")).toBe(20);
    await h.sim.clock.advance(30_000);
    expect(await ctx.status("reversal")).toBe(8);
  },
  "webhook-storm": async (ctx) => {
    answered(await ctx.order("storm"));
    await h.sim.clock.advance(1_000);
    await h.sim.clock.advance(2_000);
    await h.inbox.waitUntil(() => h.webhooksFor("lib-storm").length >= 2);
    const deliveries = h.webhooksFor("lib-storm");
    expect(deliveries.map((delivery) => delivery.webhook?.status)).toEqual([20, 0]);
    const first = deliveries[0]?.webhookId;
    await h.inbox.waitUntil(() => h.inbox.requests().filter((request) => request.webhookId === first).length === 4);
  },
  "rate-limiting": async (ctx) => {
    const replies = [];
    for (let i = 0; i < 20; i++) replies.push(answered(await ctx.order(`limit-${i}`)));
    const limited = replies.filter((reply) => reply.status === 429);
    expect(limited.length).toBeGreaterThan(1);
    expect(limited.length).toBeLessThan(15);
    expect(replies.every((reply) => reply.status === 429 || reply.status === 200)).toBe(true);
    expect(limited.every((reply) => reply.headers.get("retry-after") === "2")).toBe(true);
  },
  "intermittent-failures": async (ctx) => {
    for (let i = 0; i < 40; i++) answered(await ctx.order(`intermittent-${i}`));
    await h.sim.clock.advance(30_000);
    const statuses = await Promise.all(Array.from({ length: 40 }, (_, i) => ctx.status(`intermittent-${i}`)));
    expect(new Set(statuses)).toContain(20);
    expect(new Set(statuses)).toContain(2);
    expect(statuses.every((status) => status === 20 || status === 2 || status === 6)).toBe(true);
  },
  "processing-path": async (ctx) => {
    answered(await ctx.order("processing"));
    const seen = [];
    for (const step of [500, 2_000, 3_000]) {
      await h.sim.clock.advance(step);
      seen.push(await ctx.status("processing"));
    }
    expect(seen).toEqual([3, 31, 20]);
  },
  "error-after-commit": async (ctx) => {
    expect(answered(await ctx.order("commit-500", { key: "commit-key" })).status).toBe(500);
    expect(answered(await ctx.order("commit-500", { key: "commit-key" })).status).toBe(200);
    expect(await ctx.orders("commit-500")).toBe(1);
  },
  "webhook-tampering": async (ctx) => {
    answered(await ctx.order("tampered"));
    await h.sim.clock.advance(1_000);
    await h.inbox.waitUntil(() => h.inbox.rejected().some((rejection) => rejection.body.includes("lib-tampered")));
    expect(h.webhooksFor("lib-tampered")).toEqual([]);
  },
};

const FILES = await listLibraryFiles();

test("every shipped scenario has a test here, and the library has what QA needs", () => {
  const names = FILES.map((file) => basename(file, ".yaml"));
  expect(names.sort()).toEqual(Object.keys(CHECKS).sort());
});

test("every shipped scenario is loaded at start and listed by the admin API", async () => {
  const listed = await h.admin("GET", "/_sim/scenarios");
  const loaded = (listed.body.loaded as { name: string }[]).map((entry) => entry.name);
  expect(loaded).toEqual(expect.arrayContaining(Object.keys(CHECKS)));
});

test.each(FILES.map((file, index) => ({ name: basename(file, ".yaml"), viaHeader: index % 2 === 0 })))(
  "$name (via header: $viaHeader)",
  async ({ name, viaHeader }) => {
    const check = CHECKS[name];
    if (check === undefined) throw new Error(`no test for ${name}`);
    const ctx: Ctx = {
      order: (reference, options = {}) =>
        h.order({
          account: options.account ?? SAFARICOM,
          reference: `lib-${reference}`,
          token: QA_TOKEN,
          ...(options.key === undefined ? {} : { key: `lib-${options.key}` }),
          ...(viaHeader ? { headers: { "x-sim-scenario": name } } : {}),
        }),
      status: async (reference) => (await h.lookup(`lib-${reference}`, QA_TOKEN)).body.status,
      orders: async (reference) => {
        const listed = await h.admin("GET", `/_sim/orders?customer=${QA_CUSTOMER}&reference=lib-${reference}`);
        return (listed.body.orders as unknown[]).length;
      },
    };
    if (!viaHeader) {
      const activated = await h.admin("POST", `/_sim/scenarios/${name}/activate`, { customer: QA_CUSTOMER });
      expect(activated.status).toBe(200);
    }
    try {
      await check(ctx);
    } finally {
      if (!viaHeader) await h.admin("POST", `/_sim/scenarios/${name}/deactivate`, { customer: QA_CUSTOMER });
    }
  },
);
