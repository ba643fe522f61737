import { afterAll, beforeAll, expect, test } from "vitest";
import type { Simulator } from "../../src/index.ts";
import {
  admin,
  balanceOf,
  bearer,
  expectProblem,
  orderBody,
  placeOrder,
  send,
  startSimulator,
} from "../support/http.ts";

const A = "customer-a-token";
const B = "customer-b-token";
let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({
    demo: false,
    customers: [
      { id: "a", token: A, balance: 1_000 },
      { id: "b", token: B, balance: 1_000 },
    ],
  });
});
afterAll(() => sim.close());

test("B gets 404 for A's reference, exactly like a missing one", async () => {
  const body = orderBody();
  expect((await placeOrder(sim, body, {}, A)).status).toBe(200);
  const asB = await send(sim, `/v1/airtime/${body.reference}`, { headers: bearer(B) });
  const missing = await send(sim, `/v1/airtime/never-placed`, { headers: bearer(B) });
  expectProblem(asB, 404, "not_found");
  expect(asB.body.detail).toBe(missing.body.detail);
  expect((await send(sim, `/v1/airtime/${body.reference}`, { headers: bearer(A) })).status).toBe(200);
});

test("B cannot replay A's key: the same key makes B's own order, and each is debited once", async () => {
  const body = orderBody({ amount: 100 });
  const [beforeA, beforeB] = [await balanceOf(sim, A), await balanceOf(sim, B)];
  const asA = await placeOrder(sim, body, { "idempotency-key": "shared-key" }, A);
  const asB = await placeOrder(sim, body, { "idempotency-key": "shared-key" }, B);
  expect(asB.status).toBe(200);
  expect(asB.headers.get("idempotent-replayed")).toBeNull();
  expect(asB.body.id).not.toBe(asA.body.id);
  expect(await balanceOf(sim, A)).toBe(beforeA - 100);
  expect(await balanceOf(sim, B)).toBe(beforeB - 100);
  const orders = (await admin(sim, `/orders?reference=${body.reference}`)).body.orders;
  expect(orders.map((o: { customerId: string }) => o.customerId).sort()).toEqual(["a", "b"]);
});

test("references are scoped per customer: B may use A's reference", async () => {
  const body = orderBody();
  expect((await placeOrder(sim, body, {}, A)).status).toBe(200);
  expect((await placeOrder(sim, body, {}, B)).status).toBe(200);
});

test("each customer sees only its own balance", async () => {
  await admin(sim, "/customers/a", { method: "PATCH", body: { wallets: [{ shortcode: null, balance: 5 }] } });
  expect(await balanceOf(sim, A)).toBe(5);
  expect(await balanceOf(sim, B)).not.toBe(5);
});
