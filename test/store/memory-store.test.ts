import { describe, expect, it } from "vitest";
import { createMemoryStore } from "../../src/store/memory-store.ts";
import { describeStoreContract, order } from "./store-contract.ts";

describeStoreContract("memory", () => createMemoryStore());
// Every order packed as soon as it is written: the contract holds for packed orders too.
describeStoreContract("memory, every order packed at once", () =>
  createMemoryStore({ settled: () => true, hotOrders: 0, packInBackground: false }),
);

describe("memory store", () => {
  it("hands out frozen records, so a careless caller fails loudly instead of corrupting state", async () => {
    const store = createMemoryStore();
    await store.putCustomer({
      id: "a",
      name: "A",
      tokens: ["t"],
      apiKey: "k",
      wallets: [{ shortcode: null, balanceCents: 1, currency: "KES" }],
    });
    const read = await store.getCustomer("a");
    expect(Object.isFrozen(read)).toBe(true);
    expect(Object.isFrozen(read?.wallets[0])).toBe(true);
  });

  it("keeps an order frozen all the way down as it is, and copies one with a mutable history entry", async () => {
    const store = createMemoryStore();
    const deep = order("deep", "a", "r-deep");
    const frozen = Object.freeze({
      ...deep,
      history: Object.freeze(deep.history.map((entry) => Object.freeze({ ...entry }))),
    });
    await store.insertOrder(frozen);
    expect(await store.getOrder("deep")).toBe(frozen);

    const entry = { status: 0, message: "Pending", at: 1 };
    const shallow = Object.freeze({ ...order("shallow", "a", "r-shallow"), history: Object.freeze([entry]) });
    await store.insertOrder(shallow);
    entry.message = "changed by its caller";
    expect((await store.getOrder("shallow"))?.history[0]?.message).toBe("Pending");
  });

  it("refuses a negative or fractional amount as a programming error", async () => {
    const store = createMemoryStore();
    await expect(store.debitWallet("a", null, -1)).rejects.toThrow(RangeError);
    await expect(store.creditWallet("a", null, 1.5)).rejects.toThrow(RangeError);
  });

  it("forgets expired idempotency keys as later orders bind theirs", async () => {
    const store = createMemoryStore();
    await store.putCustomer({
      id: "a",
      name: "A",
      tokens: [],
      apiKey: "k",
      wallets: [{ shortcode: null, balanceCents: 1_000_000, currency: "KES" }],
    });
    const place = (i: number | string, expiresAt: number, now: number) =>
      store.placeOrder({
        order: { ...order(`o${i}`, "a", `r${i}`), createdAt: now },
        key: { customerId: "a", key: `k${i}`, fingerprint: "f", expiresAt, orderId: `o${i}` },
        now,
      });
    for (let i = 0; i < 100; i++) await place(i, i + 10, i);
    // A second later every earlier key has expired; the next placement sweeps them (at most once a second).
    await place("fresh", 2_000, 1_000);
    for (let i = 0; i < 100; i += 25) expect(await store.getIdempotencyRecord("a", `k${i}`, 0)).toBeUndefined();
    expect(await store.getIdempotencyRecord("a", "kfresh", 1_000)).toBeDefined();
  });
});

describe("memory store paging after many evictions", () => {
  it("keeps every page right once evicted slots are compacted away", async () => {
    const store = createMemoryStore();
    const ids: string[] = [];
    for (let i = 0; i < 5_000; i++) {
      const id = `o${i}`;
      ids.push(id);
      await store.insertOrder({
        id,
        customerId: i % 2 === 0 ? "a" : "b",
        reference: `r${i}`,
        service: "safaricom",
        account: "+254712345678",
        amountCents: 1_000,
        currency: "KES",
        shortcode: null,
        status: 20,
        message: "Success",
        createdAt: i,
        updatedAt: i,
        history: [{ status: 20, message: "Success", at: i }],
      });
    }
    // A cursor handed out before the compaction must still resume in the right place.
    const before = await store.listOrderPage({ limit: 10 });
    // Evict all but every tenth order: far more dead slots than live ones.
    for (let i = 0; i < 5_000; i++) if (i % 10 !== 0) await store.evictOrder(`o${i}`, 1, 0, 10_000);
    const seen: string[] = [];
    let cursor: string | null = before.nextCursor;
    while (cursor !== null) {
      const page = await store.listOrderPage({ limit: 37, cursor });
      seen.push(...page.orders.map((order) => order.id));
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(ids.filter((_, i) => i % 10 === 0 && i >= 10));
    const own = await store.listOrderPage({ limit: 1_000, customerId: "a" });
    expect(own.orders).toHaveLength(500);
    expect(await store.countOrders()).toBe(500);
  });
});
