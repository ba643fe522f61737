/**
 * What the domain asks of the store for one order: on a shared store each
 * call is a round trip, so an order placed for an authenticated request
 * reads neither the customer nor the order back, a lifecycle step reads
 * each once and hands the customer to the listeners, and the order cap counts
 * the orders only now and then while far below the cap — yet never lets the
 * count pass it.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_STATUS_TABLE } from "../../src/contract/status-codes.ts";
import type { Order } from "../../src/domain/model.ts";
import { createOrderRetention } from "../../src/domain/order-retention.ts";
import type { Store } from "../../src/domain/ports.ts";
import { createMemoryStore } from "../../src/store/memory-store.ts";
import { order } from "../store/store-contract.ts";
import { CUSTOMER, command, createTestDomain, TOKEN } from "./support.ts";

/** The store, with a count of the calls of each method. */
function counted(inner: Store): { store: Store; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function" || typeof property !== "string") return value;
      return (...args: unknown[]) => {
        calls.set(property, (calls.get(property) ?? 0) + 1);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store, calls };
}

describe("the store calls of one order", () => {
  it("places an order for an authenticated customer without reading the customer or the order again", async () => {
    const { store, calls } = counted(createMemoryStore());
    const domain = await createTestDomain({ store, timing: { kind: "fixed", ms: 1_000 } });
    const customer = await domain.service.authenticate(TOKEN);
    calls.clear();
    const outcome = await domain.service.placeOrder({ ...command(), customer: customer! });
    expect(outcome).toMatchObject({ kind: "placed", order: { status: 0 } });
    expect(calls.get("placeOrder")).toBe(1);
    expect(calls.get("getCustomer")).toBeUndefined();
    expect(calls.get("getOrder")).toBeUndefined();
  });

  it("answers with the order its immediate steps made, still without reading it back", async () => {
    const { store, calls } = counted(createMemoryStore());
    const domain = await createTestDomain({ store });
    const customer = await domain.service.authenticate(TOKEN);
    calls.clear();
    const plan = { steps: [{ afterMs: 0, status: 20 }] };
    const outcome = await domain.service.placeOrder({ ...command(), customer: customer!, plan });
    expect(outcome).toMatchObject({ kind: "placed", order: { status: 20 } });
    expect(calls.get("getOrder")).toBeUndefined();
    expect((await domain.service.getOrderByReference(customer!.id, "ref-1"))?.status).toBe(20);
  });
});

describe("the first step of a new order", () => {
  it("is scheduled while the store is still placing the order, so no instant leaves it without one", async () => {
    const inner = createMemoryStore();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const store: Store = {
      ...inner,
      async placeOrder(placement) {
        await gate;
        return inner.placeOrder(placement);
      },
    };
    const domain = await createTestDomain({ store, timing: { kind: "fixed", ms: 1_000 } });
    const placing = domain.service.placeOrder(command());
    await new Promise((resolve) => setImmediate(resolve));
    expect(await domain.scheduler.size()).toBe(1);
    release();
    expect(await placing).toMatchObject({ kind: "placed" });
    await domain.time.advance(1_000);
    expect((await domain.orders()).map((placed) => placed.status)).toEqual([20]);
  });

  it("is cancelled when the store refuses the order: a replay, a duplicate reference, a short balance", async () => {
    const domain = await createTestDomain({ balanceCents: 15_000, timing: { kind: "fixed", ms: 1_000 } });
    await domain.service.placeOrder(command({ idempotencyKey: "k1" }));
    expect(await domain.scheduler.size()).toBe(1);
    expect(await domain.service.placeOrder(command({ idempotencyKey: "k1" }))).toMatchObject({ kind: "replayed" });
    expect(await domain.service.placeOrder(command())).toMatchObject({ kind: "duplicate_reference" });
    const short = await domain.service.placeOrder(command({ reference: "ref-2" }));
    expect(short).toMatchObject({ kind: "insufficient_balance" });
    expect(await domain.scheduler.size()).toBe(1);
  });
});

describe("the store calls of one lifecycle step", () => {
  it("reads the order and its customer once each, and hands the customer to the listeners", async () => {
    const { store, calls } = counted(createMemoryStore());
    const domain = await createTestDomain({ store, timing: { kind: "fixed", ms: 1_000 } });
    await domain.service.placeOrder(command());
    calls.clear();
    await domain.time.advance(1_000);
    expect(domain.changes.map((change) => change.order.status)).toEqual([20]);
    expect(domain.changes[0]?.customer?.id).toBe(CUSTOMER);
    expect(calls.get("getOrder")).toBe(1);
    expect(calls.get("getCustomer")).toBe(1);
  });
});

describe("the order cap's count", () => {
  const final = (i: number): Order => ({ ...order(`o${i}`, "c", `r${i}`), status: 20 });

  it("counts the orders a few times on the way to the cap, and never lets the count pass it", async () => {
    const { store, calls } = counted(createMemoryStore());
    const maxOrders = 1_000;
    const retention = createOrderRetention({
      store,
      clock: { now: () => 0 },
      statusTable: DEFAULT_STATUS_TABLE,
      maxOrders,
      keyLifetimeMs: 1_000,
    });
    let countsBelowCap = 0;
    let highest = 0;
    await store.putCustomer({
      id: "c",
      name: "C",
      tokens: [],
      apiKey: "k",
      wallets: [{ shortcode: null, balanceCents: Number.MAX_SAFE_INTEGER, currency: "KES" }],
    });
    for (let i = 0; i < 1_500; i++) {
      await store.placeOrder({ order: final(i), now: 0 });
      await retention.afterInsert();
      if (i === 899) countsBelowCap = calls.get("countOrders") ?? 0;
      highest = Math.max(highest, (await store.listOrders()).length);
    }
    expect(countsBelowCap).toBeGreaterThan(0);
    expect(countsBelowCap).toBeLessThan(90);
    expect(highest).toBe(maxOrders);
    expect((await retention.stats()).evictedOrders).toBeGreaterThanOrEqual(500);
  });
});
