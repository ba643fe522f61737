import { afterAll, beforeAll, expect, test } from "vitest";
import type { Simulator } from "../../src/index.ts";
import { admin, balanceOf, orderBody, placeOrder, startSimulatorOnPort } from "../support/http.ts";

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulatorOnPort({
    demo: false,
    customers: [
      { id: "keyed", token: "keyed-token-1", balance: 10_000 },
      { id: "funded", token: "funded-token-1", balance: 1_000 },
    ],
  });
});
afterAll(() => sim.close());

test("100 parallel requests with one key: one order, one debit, one id", async () => {
  const body = orderBody({ amount: 25 });
  const replies = await Promise.all(
    Array.from({ length: 100 }, () => placeOrder(sim, body, { "idempotency-key": "one-key" }, "keyed-token-1")),
  );
  expect(replies.every((r) => r.status === 200)).toBe(true);
  expect(new Set(replies.map((r) => r.body.id)).size).toBe(1);
  expect(replies.filter((r) => r.headers.get("idempotent-replayed") === "true")).toHaveLength(99);
  expect((await admin(sim, "/orders?customer=keyed")).body.orders).toHaveLength(1);
  expect(await balanceOf(sim, "keyed-token-1")).toBe(10_000 - 25);
});

test("300 parallel orders against a balance covering 100: exactly 100 × 200, 200 × 402, never negative", async () => {
  let lowest = Number.POSITIVE_INFINITY;
  let watching = true;
  const watcher = (async () => {
    while (watching) lowest = Math.min(lowest, await balanceOf(sim, "funded-token-1"));
  })();
  const replies = await Promise.all(
    Array.from({ length: 300 }, (_, i) =>
      placeOrder(sim, orderBody({ amount: 10 }), { "idempotency-key": `par-${i}` }, "funded-token-1"),
    ),
  );
  watching = false;
  await watcher;
  const statuses = replies.map((r) => r.status);
  expect(statuses.filter((s) => s === 200)).toHaveLength(100);
  expect(statuses.filter((s) => s === 402)).toHaveLength(200);
  expect(replies.filter((r) => r.status === 402).every((r) => r.body.id === undefined && r.body.status === 7)).toBe(
    true,
  );
  expect(await balanceOf(sim, "funded-token-1")).toBe(0);
  expect(lowest).toBeGreaterThanOrEqual(0);
  expect((await admin(sim, "/orders?customer=funded")).body.orders).toHaveLength(100);
});
