import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  AdminClockSchema,
  AdminCustomerSchema,
  AdminOrderSchema,
  JournalEntrySchema,
  TRANSITION_ACTIONS,
} from "../../src/contract/admin-schemas.ts";
import type { Simulator } from "../../src/index.ts";
import {
  admin,
  balanceOf,
  bearer,
  DEMO_TOKEN,
  expectProblem,
  orderBody,
  placeOrder,
  send,
  startSimulator,
} from "../support/http.ts";

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({
    adminToken: "admin-token-for-tests",
    plugins: [
      () => ({
        name: "extra-admin-route",
        admin: {
          name: "extra",
          register(router) {
            router.get("/extra", (_req, res) => {
              res.json({ extra: true });
            });
          },
        },
      }),
    ],
  });
});
afterAll(() => sim.close());

describe("admin auth", () => {
  test("no token: 401 missing_token", async () => {
    expectProblem(await send(sim, `/_sim/customers`), 401, "missing_token");
  });

  test("a customer token: 403 forbidden", async () => {
    expectProblem(await send(sim, `/_sim/customers`, { headers: bearer(DEMO_TOKEN) }), 403, "forbidden");
  });

  test("an unknown token: 401 invalid_token", async () => {
    expectProblem(await send(sim, `/_sim/customers`, { headers: bearer("nope-nope") }), 401, "invalid_token");
  });

  test("the admin token does not open the public API", async () => {
    expectProblem(await send(sim, `/v1/balance`, { headers: bearer(sim.adminToken) }), 401, "invalid_token");
  });

  test("plugins' admin routes are mounted behind the admin token", async () => {
    expect((await admin(sim, "/extra")).body).toEqual({ extra: true });
    expectProblem(await send(sim, `/_sim/extra`, { headers: bearer(DEMO_TOKEN) }), 403, "forbidden");
  });

  test("unknown admin paths: 404; wrong methods: 405 with Allow", async () => {
    expectProblem(await admin(sim, "/nothing"), 404, "not_found");
    const reply = await admin(sim, "/reset");
    expectProblem(reply, 405, "method_not_allowed");
    expect(reply.headers.get("allow")).toBe("POST");
  });
});

describe("customers", () => {
  test("POST creates a customer (201) with generated token, key and webhook secret", async () => {
    const reply = await admin(sim, "/customers", {
      method: "POST",
      body: {
        id: "acme",
        balance: 500,
        wallets: [{ shortcode: "600200", balance: 20 }],
        webhook: { url: "http://127.0.0.1:9/hook" },
      },
    });
    expect(reply.status).toBe(201);
    const customer = AdminCustomerSchema.parse(reply.body);
    expect(customer).toMatchObject({ id: "acme", name: "acme" });
    expect(customer.tokens).toHaveLength(1);
    expect(customer.webhook?.secrets[0]).toMatch(/^whsec_/);
    expect(customer.webhook?.disabled).toBe(false);
    expect(customer.wallets).toEqual([
      { shortcode: null, balance: 500, currency: "KES", default: true },
      { shortcode: "600200", balance: 20, currency: "KES", default: false },
    ]);
    expect(await balanceOf(sim, customer.tokens[0])).toBe(500);
  });

  test("a second customer with the same id, or another's token: 409 already_exists", async () => {
    await admin(sim, "/customers", { method: "POST", body: { id: "dup" } });
    expectProblem(await admin(sim, "/customers", { method: "POST", body: { id: "dup" } }), 409, "already_exists");
    expectProblem(
      await admin(sim, "/customers", { method: "POST", body: { id: "thief", token: DEMO_TOKEN } }),
      409,
      "already_exists",
    );
  });

  test("a wallet listed twice: 400 validation_failed from the customer directory", async () => {
    const body = {
      id: "twice",
      wallets: [
        { shortcode: "1", balance: 1 },
        { shortcode: "1", balance: 2 },
      ],
    };
    const reply = await admin(sim, "/customers", { method: "POST", body });
    expectProblem(reply, 400, "validation_failed");
    expect(reply.body.detail).toMatch(/listed twice/);
    expectProblem(await admin(sim, "/customers/twice"), 404, "not_found");
  });

  test("an invalid body: 400 validation_failed with pointers", async () => {
    const reply = await admin(sim, "/customers", { method: "POST", body: { balance: -1, wallets: "x" } });
    expectProblem(reply, 400, "validation_failed");
    expect(reply.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(["#/balance", "#/wallets"]);
  });

  test("GET lists and reads customers; an unknown id is a 404", async () => {
    const list = await admin(sim, "/customers");
    expect(list.body.customers.map((c: { id: string }) => c.id)).toContain("demo");
    expect((await admin(sim, "/customers/demo")).body.tokens).toEqual([DEMO_TOKEN]);
    expectProblem(await admin(sim, "/customers/ghost"), 404, "not_found");
  });

  test("PATCH changes name, tokens, wallet balances and webhook", async () => {
    await admin(sim, "/customers", { method: "POST", body: { id: "patchme", token: "patch-token-1" } });
    const reply = await admin(sim, "/customers/patchme", {
      method: "PATCH",
      body: {
        name: "Patched",
        tokens: ["patch-token-2"],
        wallets: [
          { shortcode: null, balance: 42 },
          { shortcode: "777", balance: 7 },
        ],
        webhook: { url: "https://example.test/hook", secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"] },
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      name: "Patched",
      tokens: ["patch-token-2"],
      webhook: {
        url: "https://example.test/hook",
        secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"],
        disabled: false,
      },
    });
    expect(reply.body.wallets).toEqual([
      { shortcode: null, balance: 42, currency: "KES", default: true },
      { shortcode: "777", balance: 7, currency: "KES", default: false },
    ]);
    expectProblem(await send(sim, `/v1/balance`, { headers: bearer("patch-token-1") }), 401, "invalid_token");
    expect(await balanceOf(sim, "patch-token-2")).toBe(42);
    const removed = await admin(sim, "/customers/patchme", { method: "PATCH", body: { webhook: null } });
    expect(removed.body.webhook).toBeNull();
  });

  test("PATCH of an unknown customer: 404; unknown fields: 400", async () => {
    expectProblem(await admin(sim, "/customers/ghost", { method: "PATCH", body: { name: "x" } }), 404, "not_found");
    expectProblem(
      await admin(sim, "/customers/demo", { method: "PATCH", body: { balance: 1 } }),
      400,
      "validation_failed",
    );
  });
});

describe("orders", () => {
  test("lists orders with filters and reads one", async () => {
    const body = orderBody();
    const placed = await placeOrder(sim, body, { "idempotency-key": "admin-order-1" });
    const list = await admin(sim, `/orders?customer=demo&reference=${encodeURIComponent(body.reference as string)}`);
    expect(list.body.orders).toHaveLength(1);
    const order = AdminOrderSchema.parse(list.body.orders[0]);
    expect(order).toMatchObject({ id: placed.body.id, customerId: "demo", idempotencyKey: "admin-order-1", status: 0 });
    expect((await admin(sim, `/orders/${placed.body.id}`)).body.id).toBe(placed.body.id);
    const pending = await admin(sim, "/orders?status=0&customer=demo");
    expect(pending.body.orders.every((o: { status: number }) => o.status === 0)).toBe(true);
    expectProblem(await admin(sim, "/orders/ord_missing"), 404, "not_found");
    expectProblem(await admin(sim, "/orders?status=abc"), 400, "validation_failed");
  });

  test("lists the newest first with order=newest, its cursor going on to older ones", async () => {
    const placed: string[] = [];
    for (let i = 0; i < 3; i++) placed.push((await placeOrder(sim, orderBody({ reference: `newest-${i}` }))).body.id);
    const first = await admin(sim, "/orders?reference_prefix=newest-&order=newest&limit=2");
    expect(first.body.orders.map((o: { id: string }) => o.id)).toEqual([placed[2], placed[1]]);
    const rest = await admin(
      sim,
      `/orders?reference_prefix=newest-&order=newest&limit=2&cursor=${first.body.next_cursor}`,
    );
    expect(rest.body.orders.map((o: { id: string }) => o.id)).toEqual([placed[0]]);
    const oldest = await admin(sim, "/orders?reference_prefix=newest-&order=oldest");
    expect(oldest.body.orders.map((o: { id: string }) => o.id)).toEqual(placed);
    expectProblem(await admin(sim, "/orders?order=sideways"), 400, "validation_failed");
  });

  test("transition: succeed, then reverse (refunds), then nothing more: 409 invalid_transition", async () => {
    const before = await balanceOf(sim);
    const placed = await placeOrder(sim, orderBody({ amount: 40 }));
    expect(await balanceOf(sim)).toBe(before - 40);
    const id = placed.body.id as string;
    const succeeded = await admin(sim, `/orders/${id}/transition`, { method: "POST", body: { action: "succeed" } });
    expect(succeeded.body).toMatchObject({ status: 20, message: "Success" });
    const reversed = await admin(sim, `/orders/${id}/transition`, { method: "POST", body: { action: "reverse" } });
    expect(reversed.body).toMatchObject({ status: 8 });
    expect(await balanceOf(sim)).toBe(before);
    expectProblem(
      await admin(sim, `/orders/${id}/transition`, { method: "POST", body: { action: "fail" } }),
      409,
      "invalid_transition",
    );
  });

  test("transition with an explicit status and message; fail and timeout refund", async () => {
    const before = await balanceOf(sim);
    const a = await placeOrder(sim, orderBody({ amount: 30 }));
    const b = await placeOrder(sim, orderBody({ amount: 20 }));
    const viaStatus = await admin(sim, `/orders/${a.body.id}/transition`, {
      method: "POST",
      body: { status: 31, message: "Processing at operator" },
    });
    expect(viaStatus.body).toMatchObject({ status: 31, message: "Processing at operator" });
    await admin(sim, `/orders/${a.body.id}/transition`, { method: "POST", body: { action: "timeout" } });
    await admin(sim, `/orders/${b.body.id}/transition`, { method: "POST", body: { action: "fail" } });
    expect(await balanceOf(sim)).toBe(before);
  });

  test("transition: unknown order 404, bad body 400, unknown status 409", async () => {
    const placed = await placeOrder(sim, orderBody());
    expectProblem(
      await admin(sim, "/orders/ord_x/transition", { method: "POST", body: { action: "succeed" } }),
      404,
      "not_found",
    );
    const explode = await admin(sim, `/orders/${placed.body.id}/transition`, {
      method: "POST",
      body: { action: "explode" },
    });
    expectProblem(explode, 400, "validation_failed");
    // The allowed actions come from the schema's enum, so the answer lists them all.
    const listed = TRANSITION_ACTIONS.map((action) => `"${action}"`).join("|");
    expect(explode.body.detail).toBe(`The transition is not valid: #/action Invalid option: expected one of ${listed}`);
    expect(explode.body.errors).toEqual([{ pointer: "#/action", detail: `Invalid option: expected one of ${listed}` }]);
    expectProblem(
      await admin(sim, `/orders/${placed.body.id}/transition`, { method: "POST", body: { status: 4242 } }),
      409,
      "invalid_transition",
    );
  });
});

describe("clock and journal", () => {
  test("GET /clock reports the virtual clock; advance moves it", async () => {
    const before = AdminClockSchema.parse((await admin(sim, "/clock")).body);
    expect(before.mode).toBe("virtual");
    expect(before.iso).toBe(new Date(before.now).toISOString());
    const after = await admin(sim, "/clock/advance", { method: "POST", body: { ms: 1_500 } });
    expect(after.body.now).toBe(before.now + 1_500);
  });

  test("advance with a bad body: 400 validation_failed", async () => {
    for (const body of [{ ms: -1 }, { ms: "10" }, {}]) {
      expectProblem(await admin(sim, "/clock/advance", { method: "POST", body }), 400, "validation_failed");
    }
  });

  test("the journal records requests without tokens; filter by customer and limit", async () => {
    await send(sim, `/v1/balance`, { headers: bearer(DEMO_TOKEN) });
    const reply = await admin(sim, "/journal?customer=demo&limit=2");
    expect(reply.body.entries).toHaveLength(2);
    for (const entry of reply.body.entries) {
      expect(JournalEntrySchema.parse(entry).customerId).toBe("demo");
    }
    const last = reply.body.entries.at(-1);
    expect(last).toMatchObject({ method: "GET", path: "/v1/balance", status: 200 });
    const everything = JSON.stringify((await admin(sim, "/journal")).body);
    expect(everything).not.toContain(DEMO_TOKEN);
    expect(everything).not.toContain(sim.adminToken);
    expectProblem(await admin(sim, "/journal?limit=0"), 400, "validation_failed");
  });

  test("the journal pages back in time: each next_cursor leads to older entries, none lost or repeated", async () => {
    for (let i = 0; i < 5; i++) await send(sim, `/v1/balance`, { headers: bearer(DEMO_TOKEN) });
    await send(sim, `/v1/airtime/no-such-reference`, { headers: bearer(DEMO_TOKEN) });
    const everything = (await admin(sim, "/journal?customer=demo&limit=1000")).body;
    expect(everything.next_cursor).toBeNull();
    const ids = everything.entries.map((entry: { id: number }) => entry.id);
    expect(ids.length).toBeGreaterThanOrEqual(6);

    const paged: number[][] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? "" : `&cursor=${cursor}`;
      const page = (await admin(sim, `/journal?customer=demo&limit=2${query}`)).body;
      expect(page.entries.length).toBeLessThanOrEqual(2);
      paged.push(page.entries.map((entry: { id: number }) => entry.id));
      cursor = page.next_cursor;
    } while (cursor !== null);
    // Pages come newest first, each newest last: reversed, they give the whole journal in order.
    expect(paged.reverse().flat()).toEqual(ids);

    const notFound = (await admin(sim, "/journal?status=404")).body.entries;
    expect(notFound.length).toBeGreaterThan(0);
    expect(notFound.every((entry: { status: number }) => entry.status === 404)).toBe(true);
    const last = everything.entries.at(-1) as { at: number };
    expect((await admin(sim, `/journal?from=${last.at + 1}`)).body.entries).toEqual([]);
    expectProblem(await admin(sim, "/journal?limit=1001"), 400, "validation_failed");
    expectProblem(await admin(sim, "/journal?cursor=NOT-A-CURSOR"), 400, "validation_failed");
  });
});

describe("reset", () => {
  test("reset of one customer: its orders, keys and journal go, balances return to their configured start", async () => {
    await admin(sim, "/customers", {
      method: "POST",
      body: { id: "resettable", token: "reset-token-1", balance: 100 },
    });
    const body = orderBody({ amount: 60 });
    const first = await placeOrder(sim, body, { "idempotency-key": "reset-key" }, "reset-token-1");
    await placeOrder(sim, orderBody(), {}, DEMO_TOKEN);
    expect(await balanceOf(sim, "reset-token-1")).toBe(40);

    expect((await admin(sim, "/reset?customer=resettable", { method: "POST" })).body).toEqual({ reset: "resettable" });
    expect(await balanceOf(sim, "reset-token-1")).toBe(100);
    expect((await admin(sim, "/orders?customer=resettable")).body.orders).toEqual([]);
    expect((await admin(sim, "/orders?customer=demo")).body.orders.length).toBeGreaterThan(0);
    // The key is free again: the same request places a new order.
    const again = await placeOrder(sim, body, { "idempotency-key": "reset-key" }, "reset-token-1");
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(again.body.id).not.toBe(first.body.id);
    const journal = await admin(sim, "/journal?customer=resettable");
    expect(journal.body.entries).toHaveLength(2);
  });

  test("reset of an unknown customer: 404", async () => {
    expectProblem(await admin(sim, "/reset?customer=ghost", { method: "POST" }), 404, "not_found");
  });

  test("reset of everything: every order gone, customers back to their configured balances", async () => {
    await placeOrder(sim, orderBody({ amount: 1_000 }));
    expect((await admin(sim, "/reset", { method: "POST" })).body).toEqual({ reset: "all" });
    expect((await admin(sim, "/orders")).body.orders).toEqual([]);
    expect(await balanceOf(sim)).toBe(100_000);
    expect(await balanceOf(sim, "patch-token-2")).toBe(42);
  });
});

describe("real clock", () => {
  test("advancing a real clock: 409 clock_not_virtual", async () => {
    const real = await startSimulator({ clock: "real" });
    try {
      expect((await admin(real, "/clock")).body.mode).toBe("real");
      expectProblem(await admin(real, "/clock/advance", { method: "POST", body: { ms: 1 } }), 409, "clock_not_virtual");
    } finally {
      await real.close();
    }
  });
});
