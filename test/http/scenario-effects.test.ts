import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Order } from "../../src/domain/model.ts";
import type { RequestFacts, ResolvedEffects, ScenarioEngine, Simulator } from "../../src/index.ts";
import { admin, balanceOf, expectProblem, orderBody, placeOrder, startSimulatorOnPort } from "../support/http.ts";

/** Effects chosen per request by the reference's prefix, so each test controls its own requests. */
const RULES: Record<string, ResolvedEffects> = {
  "e429-": { fired: ["test/rate"], beforeCommit: { kind: "error", status: 429, retryAfterSeconds: 7 } },
  "e500-": { fired: ["test/500"], beforeCommit: { kind: "error", status: 500 } },
  "e502-": { fired: ["test/502"], beforeCommit: { kind: "error", status: 502 } },
  "e503-": { fired: ["test/503"], beforeCommit: { kind: "error", status: 503, retryAfterSeconds: 1 } },
  "drop-": { fired: ["test/drop"], beforeCommit: { kind: "drop" } },
  "lost-": { fired: ["test/lost"], afterCommit: { kind: "drop" } },
  "after503-": { fired: ["test/after"], afterCommit: { kind: "error", status: 503 } },
  "slow-": { fired: ["test/slow"], latencyMs: 150 },
  "poor-": { fired: ["test/poor"], forceInsufficient: true },
  "stuck-": { fired: ["test/stuck"], plan: { steps: [] } },
  "path-": {
    fired: ["test/path"],
    plan: {
      steps: [
        { afterMs: 100, status: 31 },
        { afterMs: 100, status: 2, message: "Operator said no" },
      ],
    },
  },
  "hookfirst-": { fired: ["test/hook"], webhookFaults: { beforeResponse: true } },
  "merge-": { fired: ["test/merge"], beforeCommit: { kind: "error", status: 500 } },
  "reject-": { fired: [], rejection: { code: "validation_failed", detail: "no such scenario" } },
};

/** Only the first attempt of a reference is affected, like a `times: 1` rule. */
function createTestEngine(seen: RequestFacts[]): ScenarioEngine {
  const attempts = new Map<string, number>();
  return {
    async evaluate(facts) {
      seen.push(facts);
      const n = (attempts.get(facts.reference) ?? 0) + 1;
      attempts.set(facts.reference, n);
      const prefix = Object.keys(RULES).find((p) => facts.reference.startsWith(p));
      if (prefix === undefined || n > 1) return { fired: [] };
      return RULES[prefix] as ResolvedEffects;
    },
  };
}

const seen: RequestFacts[] = [];
const beforeResponseCalls: Order[] = [];
let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulatorOnPort({
    plugins: [
      () => ({ name: "test-scenarios", scenarios: createTestEngine(seen) }),
      // A second engine: its fields override the first one's, `fired` is concatenated.
      () => ({
        name: "second-engine",
        scenarios: {
          async evaluate(facts) {
            return facts.reference.startsWith("merge-")
              ? { fired: ["second/override"], beforeCommit: { kind: "error", status: 503, retryAfterSeconds: 2 } }
              : { fired: [] };
          },
        },
        async beforeResponse(order) {
          beforeResponseCalls.push(order);
        },
      }),
    ],
  });
});
afterAll(() => sim.close());

const ref = (prefix: string) => `${prefix}${Math.random().toString(36).slice(2)}`;

async function ordersFor(reference: string): Promise<{ id: string; status: number }[]> {
  return (await admin(sim, `/orders?reference=${encodeURIComponent(reference)}`)).body.orders;
}

describe("failures before commit", () => {
  test.each([
    ["e429-", 429, "rate_limited", "7"],
    ["e500-", 500, "internal_error", null],
    ["e502-", 502, "upstream_error", null],
    ["e503-", 503, "service_unavailable", "1"],
  ])(
    "%s answers %i %s (Retry-After %s), commits nothing, and leaves the key unused",
    async (prefix, status, code, retryAfter) => {
      const before = await balanceOf(sim);
      const body = orderBody({ reference: ref(prefix) });
      const reply = await placeOrder(sim, body, { "idempotency-key": `key-${body.reference}` });
      expectProblem(reply, status, code);
      expect(reply.headers.get("retry-after")).toBe(retryAfter);
      expect(await ordersFor(body.reference as string)).toEqual([]);
      expect(await balanceOf(sim)).toBe(before);
      // The retry is not a replay: the key was not consumed by the failure.
      const retry = await placeOrder(sim, body, { "idempotency-key": `key-${body.reference}` });
      expect(retry.status).toBe(200);
      expect(retry.headers.get("idempotent-replayed")).toBeNull();
    },
  );

  test("drop: the connection is destroyed and nothing is committed", async () => {
    const body = orderBody({ reference: ref("drop-") });
    await expect(placeOrder(sim, body)).rejects.toThrow();
    expect(await ordersFor(body.reference as string)).toEqual([]);
    const journal = (await admin(sim, "/journal?customer=demo&limit=50")).body.entries;
    expect(journal.find((e: { fired: string[] }) => e.fired.includes("test/drop"))?.status).toBe(0);
  });

  test("a rejection from an engine answers its problem before anything else", async () => {
    const body = orderBody({ reference: ref("reject-") });
    expectProblem(await placeOrder(sim, body), 400, "validation_failed");
    expect(await ordersFor(body.reference as string)).toEqual([]);
  });
});

describe("failures after commit", () => {
  test("a lost response: the order exists and a retry with the same key replays it", async () => {
    const before = await balanceOf(sim);
    const body = orderBody({ reference: ref("lost-"), amount: 15 });
    await expect(placeOrder(sim, body, { "idempotency-key": "lost-key" })).rejects.toThrow();
    const orders = await ordersFor(body.reference as string);
    expect(orders).toHaveLength(1);
    const retry = await placeOrder(sim, body, { "idempotency-key": "lost-key" });
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.body.id).toBe(orders[0]?.id);
    expect(await balanceOf(sim)).toBe(before - 15);
  });

  test("a 503 after commit: the client sees the error, the order exists, the retry replays it", async () => {
    const body = orderBody({ reference: ref("after503-") });
    expectProblem(await placeOrder(sim, body, { "idempotency-key": "after-key" }), 503, "service_unavailable");
    const [order] = await ordersFor(body.reference as string);
    const retry = await placeOrder(sim, body, { "idempotency-key": "after-key" });
    expect(retry.body.id).toBe(order?.id);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
  });
});

describe("effects on the order", () => {
  test("latency delays the response on real timers", async () => {
    const started = performance.now();
    const reply = await placeOrder(sim, orderBody({ reference: ref("slow-") }));
    expect(reply.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  test("forced insufficient balance: 402 envelope although the wallet is funded", async () => {
    const body = orderBody({ reference: ref("poor-") });
    const reply = await placeOrder(sim, body);
    expect(reply.status).toBe(402);
    expect(reply.body).toEqual({
      reference: body.reference,
      status: 7,
      message: "Insufficient balance",
      code: "insufficient_balance",
    });
  });

  test("a plan replaces the lifecycle: an empty plan stays pending, a path walks its steps", async () => {
    const stuck = orderBody({ reference: ref("stuck-") });
    const path = orderBody({ reference: ref("path-") });
    await placeOrder(sim, stuck);
    await placeOrder(sim, path);
    await sim.clock.advance(100);
    expect((await ordersFor(path.reference as string))[0]?.status).toBe(31);
    await sim.clock.advance(100_000);
    expect((await ordersFor(stuck.reference as string))[0]?.status).toBe(0);
    const [final] = await ordersFor(path.reference as string);
    expect(final).toMatchObject({ status: 2, message: "Operator said no" });
  });

  test("webhookFaults.beforeResponse: every plugin's beforeResponse runs before the response", async () => {
    const body = orderBody({ reference: ref("hookfirst-") });
    const reply = await placeOrder(sim, body);
    expect(beforeResponseCalls.map((o) => o.id)).toContain(reply.body.id);
    const plain = await placeOrder(sim, orderBody());
    expect(beforeResponseCalls.map((o) => o.id)).not.toContain(plain.body.id);
  });

  test("engines see the request's facts, a later engine overrides an earlier one, and the journal lists every rule that fired", async () => {
    const body = orderBody({ reference: ref("merge-"), account: "0733000111", amount: 12.5 });
    const reply = await placeOrder(sim, body, { "idempotency-key": "facts-key", "x-sim-scenario": "chaos" });
    // The later engine's failure (503) overrides the earlier one's (500).
    expect(reply.status).toBe(503);
    expect(reply.headers.get("retry-after")).toBe("2");
    const facts = seen.find((f) => f.reference === body.reference);
    expect(facts).toMatchObject({
      customerId: "demo",
      account: "+254733000111",
      service: "airtel",
      amountCents: 1250,
      idempotencyKey: "facts-key",
      requestedScenario: "chaos",
    });
    expect(facts?.headers.authorization).toBeUndefined();
    const entries = (await admin(sim, "/journal?customer=demo&limit=5")).body.entries;
    expect(entries.at(-1).fired).toEqual(["test/merge", "second/override"]);
  });
});
