import { afterEach, describe, expect, test } from "vitest";
import type { Simulator } from "../../src/simulator/create-simulator.ts";
import type { SimulatorOptions } from "../../src/simulator/simulator-options.ts";
import { admin, balanceOf, expectProblem, lookup, orderBody, placeOrder, startSimulator } from "../support/http.ts";

let sim: Simulator | undefined;
const warnings: string[] = [];

async function start(options: SimulatorOptions): Promise<Simulator> {
  sim = await startSimulator(options);
  return sim;
}

afterEach(async () => {
  await sim?.close();
  sim = undefined;
  warnings.length = 0;
});

async function placeKeyed(target: Simulator, count: number, prefix: string) {
  const placed: { key: string; body: Record<string, unknown>; id: string }[] = [];
  for (let i = 0; i < count; i++) {
    const body = orderBody({ reference: `${prefix}-${i}` });
    const key = `${prefix}-key-${i}`;
    const reply = await placeOrder(target, body, { "idempotency-key": key });
    expect(reply.status).toBe(200);
    placed.push({ key, body, id: reply.body.id as string });
  }
  return placed;
}

describe("the order cap", () => {
  test("evicts the oldest final orders; a replay still answers the same id and status, a lookup says 410", async () => {
    const target = await start({ maxOrders: 3, timing: "1s" });
    const first = await placeKeyed(target, 5, "old");
    await target.clock.advance(1_000);
    const balanceBefore = await balanceOf(target);
    await placeKeyed(target, 1, "new");

    const stats = (await admin(target, "/stats")).body;
    expect(stats.orders).toEqual({ retained: 3, max: 3, evicted: 3, evictedRecords: 3 });
    const listed = (await admin(target, "/orders")).body.orders.map((o: { reference: string }) => o.reference);
    expect(listed).toEqual(["old-3", "old-4", "new-0"]);

    const gone = first[0]!;
    expectProblem(await lookup(target, "old-0"), 410, "order_evicted");
    const replay = await placeOrder(target, gone.body, { "idempotency-key": gone.key });
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toMatchObject({ id: gone.id, reference: "old-0", status: 20 });
    // The replay created nothing and charged nothing.
    expect((await admin(target, "/stats")).body.orders.retained).toBe(3);
    expect(await balanceOf(target)).toBe(balanceBefore - 100);
    // The reference stays taken, and the key stays bound to its payload.
    expectProblem(
      await placeOrder(target, { ...gone.body }, { "idempotency-key": "another-key" }),
      409,
      "duplicate_reference",
    );
    expectProblem(
      await placeOrder(target, { ...gone.body, amount: 200 }, { "idempotency-key": gone.key }),
      409,
      "idempotency_payload_mismatch",
    );
  });

  test("never evicts a pending order, whatever the cap", async () => {
    const target = await start({ maxOrders: 2, timing: "1h" });
    await placeKeyed(target, 5, "slow");
    expect((await admin(target, "/stats")).body.orders).toMatchObject({ retained: 5, evicted: 0 });
    for (let i = 0; i < 5; i++) expect((await lookup(target, `slow-${i}`)).status).toBe(200);
  });

  test("an order evicted after its key retention leaves nothing: 404 and the reference is free", async () => {
    const target = await start({ maxOrders: 1, timing: "1s", idempotencyRetentionMs: 10_000 });
    await placeKeyed(target, 1, "aged");
    await target.clock.advance(10_000);
    await placeKeyed(target, 1, "fresh");
    expect((await admin(target, "/stats")).body.orders).toMatchObject({ evicted: 1, evictedRecords: 0 });
    expectProblem(await lookup(target, "aged-0"), 404, "not_found");
    expect((await placeOrder(target, orderBody({ reference: "aged-0" }))).status).toBe(200);
  });

  test("keeps an order whose webhook is still undelivered, and evicts it with its deliveries once done", async () => {
    const target = await start({
      maxOrders: 1,
      timing: "1s",
      defaultPlugins: true,
      scenarios: false,
      webhooks: { schedule: "0,1h", timeout: "1s", jitter: 0 },
      // Nothing listens on port 9: every attempt fails, so the delivery waits for its retry.
      demo: { token: "demo-token-for-tests", balance: 100_000, webhook: { url: "http://127.0.0.1:9/hook" } },
    });
    await placeKeyed(target, 1, "hooked");
    await target.clock.advance(1_000);
    expect((await admin(target, "/deliveries?state=pending")).body.deliveries).toHaveLength(1);
    await placeKeyed(target, 1, "next");
    expect((await admin(target, "/stats")).body.orders).toMatchObject({ retained: 2, evicted: 0 });

    // The retry fails too and the schedule ends: the delivery is final, the order may go.
    await target.clock.advance(3_600_000);
    expect((await admin(target, "/deliveries?reference=hooked-0")).body.deliveries[0].state).toBe("failed");
    await placeKeyed(target, 1, "last");
    // "next-0" still waits for its own retry, so only "hooked-0" goes.
    expect((await admin(target, "/stats")).body.orders).toMatchObject({ retained: 2, evicted: 1 });
    expect((await admin(target, "/deliveries?reference=hooked-0")).body.deliveries).toEqual([]);
    expectProblem(await lookup(target, "hooked-0"), 410, "order_evicted");
  });

  test("logs the first eviction once", async () => {
    const target = await start({ maxOrders: 1, timing: "0s" });
    const original = console.warn;
    console.warn = (message: string) => warnings.push(message);
    try {
      await placeKeyed(target, 4, "log");
    } finally {
      console.warn = original;
    }
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/order cap of 1 reached/);
  });
});

describe("admin listings page with a cursor", () => {
  test("orders: limit, next_cursor, and the filters", async () => {
    const target = await start({ timing: "1h" });
    for (let i = 0; i < 7; i++)
      await placeOrder(target, orderBody({ reference: `${i % 2 === 0 ? "even" : "odd"}-${i}` }));
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const reply = await admin(target, `/orders?limit=3${cursor === null ? "" : `&cursor=${cursor}`}`);
      expect(reply.status).toBe(200);
      expect(reply.body.orders.length).toBeLessThanOrEqual(3);
      seen.push(...reply.body.orders.map((o: { reference: string }) => o.reference));
      cursor = reply.body.next_cursor;
      pages++;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen).toEqual(["even-0", "odd-1", "even-2", "odd-3", "even-4", "odd-5", "even-6"]);

    const odd = (await admin(target, "/orders?reference_prefix=odd-")).body;
    expect(odd.orders.map((o: { reference: string }) => o.reference)).toEqual(["odd-1", "odd-3", "odd-5"]);
    expect(odd.next_cursor).toBeNull();
    const now = target.clock.now();
    expect((await admin(target, `/orders?from=${now + 1}`)).body.orders).toEqual([]);
    expect((await admin(target, `/orders?to=${now}&customer=demo&status=0`)).body.orders).toHaveLength(7);
  });

  test("refuses a limit above 1,000 and a cursor it did not hand out", async () => {
    const target = await start({});
    expectProblem(await admin(target, "/orders?limit=1001"), 400, "validation_failed");
    expectProblem(await admin(target, "/orders?cursor=NOT-ONE"), 400, "validation_failed");
    expectProblem(await admin(target, "/customers?limit=0"), 400, "validation_failed");
  });

  test("customers page too", async () => {
    const target = await start({
      customers: [
        { id: "c1", token: "token-c1-abcdef" },
        { id: "c2", token: "token-c2-abcdef" },
      ],
    });
    const first = (await admin(target, "/customers?limit=2")).body;
    expect(first.customers.map((c: { id: string }) => c.id)).toEqual(["demo", "c1"]);
    const second = (await admin(target, `/customers?limit=2&cursor=${first.next_cursor}`)).body;
    expect(second.customers.map((c: { id: string }) => c.id)).toEqual(["c2"]);
    expect(second.next_cursor).toBeNull();
  });
});
