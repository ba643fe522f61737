/**
 * Every effect end to end: a real simulator on a real port, scenarios
 * uploaded through the admin API and chosen per request with X-Sim-Scenario,
 * webhooks received by a verifying inbox, time moved by the virtual clock.
 */
import { beforeAll, describe, expect, test } from "vitest";
import type { ScenarioFileInput } from "../../src/scenarios/schema.ts";
import { answered, QA_CUSTOMER, QA_TOKEN, useHarness } from "./scenario-harness.ts";

const ACCOUNT = "0712345678";

const SCENARIOS: ScenarioFileInput[] = [
  { name: "t-latency", description: "latency", rules: [{ name: "r", effects: { latency: "300ms" } }] },
  {
    name: "t-429",
    description: "429 with Retry-After",
    rules: [{ name: "r", effects: { httpError: { status: 429, retryAfter: 7, when: "before_commit" } } }],
  },
  {
    name: "t-500",
    description: "500",
    rules: [{ name: "r", effects: { httpError: { status: 500, when: "before_commit" } } }],
  },
  {
    name: "t-502",
    description: "502",
    rules: [{ name: "r", effects: { httpError: { status: 502, when: "before_commit" } } }],
  },
  {
    name: "t-503-after",
    description: "503 after commit, first attempt",
    rules: [{ name: "r", match: { attempt: 1 }, effects: { httpError: { status: 503, when: "after_commit" } } }],
  },
  {
    name: "t-drop-before",
    description: "drop before commit",
    rules: [{ name: "r", effects: { dropResponse: { when: "before_commit" } } }],
  },
  {
    name: "t-drop-after",
    description: "drop after commit, first attempt",
    rules: [{ name: "r", match: { attempt: 1 }, effects: { dropResponse: { when: "after_commit" } } }],
  },
  {
    name: "t-503-twice",
    description: "503 twice",
    rules: [{ name: "r", match: { firstN: 2 }, effects: { httpError: { status: 503, when: "before_commit" } } }],
  },
  {
    name: "t-outcome",
    description: "timeout with a message",
    rules: [{ name: "r", effects: { outcome: { status: 6, message: "Operator did not answer", after: "4s" } } }],
  },
  {
    name: "t-path",
    description: "0 → 3 → 31 → 20",
    rules: [
      {
        name: "r",
        effects: {
          path: [
            { status: 3, after: "1s" },
            { status: 31, after: "1s" },
            { status: 20, after: "1s" },
          ],
        },
      },
    ],
  },
  { name: "t-stuck", description: "stuck", rules: [{ name: "r", effects: { stuckPending: true } }] },
  {
    name: "t-reverse",
    description: "success then reversal",
    rules: [{ name: "r", effects: { outcome: { status: 20, after: "1s" }, reverseAfter: "10s" } }],
  },
  { name: "t-insufficient", description: "402", rules: [{ name: "r", effects: { insufficientBalance: true } }] },
  {
    name: "t-webhook-delay",
    description: "late webhook",
    rules: [{ name: "r", effects: { outcome: { status: 20, after: "1s" }, webhook: { delay: "5s" } } }],
  },
  {
    name: "t-webhook-dup",
    description: "duplicated webhook",
    rules: [{ name: "r", effects: { outcome: { status: 20, after: "1s" }, webhook: { duplicate: 2 } } }],
  },
  {
    name: "t-webhook-stale",
    description: "out-of-order webhook",
    rules: [{ name: "r", effects: { outcome: { status: 20, after: "1s" }, webhook: { outOfOrder: true } } }],
  },
  {
    name: "t-webhook-badsig",
    description: "badly signed webhook",
    rules: [{ name: "r", effects: { outcome: { status: 20, after: "1s" }, webhook: { badSignature: true } } }],
  },
  {
    name: "t-webhook-drop",
    description: "dropped webhook",
    rules: [{ name: "r", effects: { outcome: { status: 20, after: "1s" }, webhook: { drop: true } } }],
  },
  {
    name: "t-webhook-first",
    description: "webhook before the response",
    rules: [{ name: "r", effects: { outcome: { status: 20, after: "0ms" }, webhook: { beforeResponse: true } } }],
  },
];

// On a port: some scenarios drop the connection.
const h = useHarness({ onPort: true });

beforeAll(async () => {
  for (const definition of SCENARIOS) {
    const uploaded = await h.admin("POST", "/_sim/scenarios", definition);
    expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(201);
  }
});

function order(scenario: string, reference: string, key?: string) {
  return h.order({
    account: ACCOUNT,
    reference,
    token: QA_TOKEN,
    ...(key === undefined ? {} : { key }),
    headers: { "x-sim-scenario": scenario },
  });
}

async function ordersWithReference(reference: string): Promise<unknown[]> {
  const listed = await h.admin(
    "GET",
    `/_sim/orders?customer=${QA_CUSTOMER}&reference=${encodeURIComponent(reference)}`,
  );
  return listed.body.orders as unknown[];
}

describe("response effects", () => {
  test("latency delays the response by the sampled time", async () => {
    const reply = answered(await order("t-latency", "lat-1"));
    expect(reply.status).toBe(200);
    expect(reply.elapsedMs).toBeGreaterThanOrEqual(290);
  });

  test.each([
    ["t-429", 429, "rate_limited", "7"],
    ["t-500", 500, "internal_error", null],
    ["t-502", 502, "upstream_error", null],
  ] as const)(
    "%s answers %d before commit: nothing is created or debited",
    async (scenario, status, code, retryAfter) => {
      const before = await h.balance(QA_TOKEN);
      const reply = answered(await order(scenario, `err-${status}`, `err-key-${status}`));
      expect(reply.status).toBe(status);
      expect(reply.headers.get("content-type")).toContain("application/problem+json");
      expect(reply.body.code).toBe(code);
      expect(reply.headers.get("retry-after")).toBe(retryAfter);
      expect((await h.lookup(`err-${status}`, QA_TOKEN)).status).toBe(404);
      expect(await h.balance(QA_TOKEN)).toBe(before);
    },
  );

  test("an error after commit: the order exists; a retry with the same key gets it, one debit", async () => {
    const before = await h.balance(QA_TOKEN);
    const failed = answered(await order("t-503-after", "after-1", "after-key-1"));
    expect(failed.status).toBe(503);
    const lookup = await h.lookup("after-1", QA_TOKEN);
    expect(lookup.status).toBe(200);
    const retry = answered(await order("t-503-after", "after-1", "after-key-1"));
    expect(retry.status).toBe(200);
    expect(retry.body.id).toBe(lookup.body.id);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await h.balance(QA_TOKEN)).toBe(before - 100);
  });

  test("a connection dropped before commit: a network error and nothing created", async () => {
    const reply = await order("t-drop-before", "drop-before-1", "drop-before-key");
    expect(reply.kind).toBe("network_error");
    expect((await h.lookup("drop-before-1", QA_TOKEN)).status).toBe(404);
  });

  test("a response lost after commit, then a retry with the same key: the same id and one debit", async () => {
    const before = await h.balance(QA_TOKEN);
    const lost = await order("t-drop-after", "lost-1", "lost-key-1");
    expect(lost.kind).toBe("network_error");
    const retry = answered(await order("t-drop-after", "lost-1", "lost-key-1"));
    expect(retry.status).toBe(200);
    const lookup = await h.lookup("lost-1", QA_TOKEN);
    expect(retry.body.id).toBe(lookup.body.id);
    expect(await ordersWithReference("lost-1")).toHaveLength(1);
    expect(await h.balance(QA_TOKEN)).toBe(before - 100);
  });

  test("503 twice then success gives exactly one order and one debit", async () => {
    const before = await h.balance(QA_TOKEN);
    const statuses = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      statuses.push(answered(await order("t-503-twice", "twice-1", "twice-key-1")).status);
    }
    expect(statuses).toEqual([503, 503, 200]);
    expect(await ordersWithReference("twice-1")).toHaveLength(1);
    expect(await h.balance(QA_TOKEN)).toBe(before - 100);
    const journal = await h.admin("GET", `/_sim/journal?customer=${QA_CUSTOMER}`);
    const posts = (journal.body.entries as { fired: string[]; method: string; path: string }[]).filter(
      (entry) => entry.method === "POST" && entry.path === "/v1/airtime",
    );
    const fired = posts.slice(-3).map((entry) => entry.fired);
    expect(fired).toEqual([["t-503-twice/r"], ["t-503-twice/r"], []]);
  });
});

describe("outcome effects", () => {
  test("an outcome sets the final status, message and delay", async () => {
    answered(await order("t-outcome", "outcome-1"));
    await h.sim.clock.advance(3_999);
    expect((await h.lookup("outcome-1", QA_TOKEN)).body.status).toBe(0);
    await h.sim.clock.advance(1);
    const final = await h.lookup("outcome-1", QA_TOKEN);
    expect(final.body).toMatchObject({ status: 6, message: "Operator did not answer" });
  });

  test("a path walks 0 → 3 → 31 → 20", async () => {
    answered(await order("t-path", "path-1"));
    const seen = [];
    for (let i = 0; i < 3; i++) {
      await h.sim.clock.advance(1_000);
      seen.push((await h.lookup("path-1", QA_TOKEN)).body.status);
    }
    expect(seen).toEqual([3, 31, 20]);
    const history = (await h.lookup("path-1", QA_TOKEN)).body.history as { status: number }[];
    expect(history.map((entry) => entry.status)).toEqual([0, 3, 31, 20]);
  });

  test("a stuck order stays pending however long you wait", async () => {
    answered(await order("t-stuck", "stuck-1"));
    await h.sim.clock.advance(24 * 3_600_000);
    expect((await h.lookup("stuck-1", QA_TOKEN)).body.status).toBe(0);
  });

  test("success then reversal refunds the wallet", async () => {
    const before = await h.balance(QA_TOKEN);
    answered(await order("t-reverse", "reverse-1"));
    await h.sim.clock.advance(1_000);
    expect((await h.lookup("reverse-1", QA_TOKEN)).body.status).toBe(20);
    expect(await h.balance(QA_TOKEN)).toBe(before - 100);
    await h.sim.clock.advance(10_000);
    expect((await h.lookup("reverse-1", QA_TOKEN)).body.status).toBe(8);
    expect(await h.balance(QA_TOKEN)).toBe(before);
  });

  test("forced insufficient balance: 402, no id, nothing debited, the reference stays free", async () => {
    const before = await h.balance(QA_TOKEN);
    const reply = answered(await order("t-insufficient", "poor-1", "poor-key"));
    expect(reply.status).toBe(402);
    expect(reply.body).toEqual({
      reference: "poor-1",
      status: 7,
      message: "Insufficient balance",
      code: "insufficient_balance",
    });
    expect(await h.balance(QA_TOKEN)).toBe(before);
    const retry = answered(
      await h.order({ account: ACCOUNT, reference: "poor-1", key: "poor-key-2", token: QA_TOKEN }),
    );
    expect(retry.status).toBe(200);
  });
});

describe("webhook effects", () => {
  test("a delayed webhook arrives only after its delay", async () => {
    answered(await order("t-webhook-delay", "wh-delay-1"));
    await h.sim.clock.advance(1_000);
    expect(h.webhooksFor("wh-delay-1")).toEqual([]);
    await h.sim.clock.advance(5_000);
    await h.inbox.waitFor("wh-delay-1", { status: 20 });
    expect(h.webhooksFor("wh-delay-1")).toHaveLength(1);
  });

  test("a duplicated webhook arrives 1 + n times with the same webhook-id", async () => {
    answered(await order("t-webhook-dup", "wh-dup-1"));
    await h.sim.clock.advance(1_000);
    const delivery = await h.inbox.waitFor("wh-dup-1", { status: 20 });
    await h.inbox.waitUntil(
      () => h.inbox.requests().filter((request) => request.webhookId === delivery.webhookId).length === 3,
    );
    expect(h.webhooksFor("wh-dup-1")).toHaveLength(1);
  });

  test("an out-of-order webhook arrives after the final one, with the stale status", async () => {
    answered(await order("t-webhook-stale", "wh-stale-1"));
    await h.sim.clock.advance(1_000);
    await h.inbox.waitUntil(() => h.webhooksFor("wh-stale-1").length >= 2);
    const statuses = h.webhooksFor("wh-stale-1").map((delivery) => delivery.webhook?.status);
    expect(statuses).toEqual([20, 0]);
    // The status endpoint still says 20: the stale webhook is the receiver's problem to ignore.
    expect((await h.lookup("wh-stale-1", QA_TOKEN)).body.status).toBe(20);
  });

  test("a badly signed webhook is sent, and a verifying receiver rejects it", async () => {
    answered(await order("t-webhook-badsig", "wh-badsig-1"));
    await h.sim.clock.advance(1_000);
    await h.inbox.waitUntil(() => h.inbox.rejected().some((rejection) => rejection.body.includes("wh-badsig-1")));
    expect(h.webhooksFor("wh-badsig-1")).toEqual([]);
  });

  test("a dropped webhook is never sent; the status endpoint has the final status", async () => {
    answered(await order("t-webhook-drop", "wh-drop-1"));
    await h.sim.clock.advance(60_000);
    await h.sim.settle();
    expect(h.webhooksFor("wh-drop-1")).toEqual([]);
    expect(h.inbox.rejected().some((rejection) => rejection.body.includes("wh-drop-1"))).toBe(false);
    expect((await h.lookup("wh-drop-1", QA_TOKEN)).body.status).toBe(20);
  });

  test("a webhook sent before the response is already in the inbox when the response arrives", async () => {
    const reply = answered(await order("t-webhook-first", "wh-first-1"));
    expect(reply.status).toBe(200);
    expect(reply.body.status).toBe(20);
    const [delivery] = h.webhooksFor("wh-first-1");
    expect(delivery?.webhook?.status).toBe(20);
  });
});
