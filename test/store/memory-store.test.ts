import { describe, expect, it } from "vitest";
import { createMemoryStore } from "../../src/store/memory-store.ts";
import type { Customer } from "../../src/domain/model.ts";
import { describeStoreContract, liveKey, order } from "./store-contract.ts";

/** A customer whose default wallet pays for any number of orders. */
const rich = (id: string): Customer => ({
  id,
  name: id,
  tokens: [],
  apiKey: "k",
  wallets: [{ shortcode: null, balanceCents: Number.MAX_SAFE_INTEGER, currency: "KES" }],
});

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
    await store.putCustomer(rich("a"));
    await store.placeOrder({ order: frozen, now: 0 });
    expect(await store.getOrder("deep")).toBe(frozen);

    const entry = { status: 0, message: "Pending", at: 1 };
    const shallow = Object.freeze({ ...order("shallow", "a", "r-shallow"), history: Object.freeze([entry]) });
    await store.placeOrder({ order: shallow, now: 0 });
    entry.message = "changed by its caller";
    expect((await store.getOrder("shallow"))?.history[0]?.message).toBe("Pending");
  });

  it("refuses a negative or fractional amount as a programming error", async () => {
    const store = createMemoryStore();
    await store.putCustomer(rich("a"));
    await expect(store.setWalletBalance("a", null, -1)).rejects.toThrow(RangeError);
    const fractional = { ...order("o1", "a", "r1"), amountCents: 1.5 };
    await expect(store.placeOrder({ order: fractional, now: 0 })).rejects.toThrow(RangeError);
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
    // Asked at time 0, when they were live: only a key swept away is absent then.
    for (let i = 0; i < 100; i += 25) expect(await liveKey(store, "a", `k${i}`, 0)).toBeUndefined();
    expect(await liveKey(store, "a", "kfresh", 1_000)).toBeDefined();
  });
});

describe("memory store paging after many evictions", () => {
  it("keeps every page right once evicted slots are compacted away", async () => {
    const store = createMemoryStore();
    const ids: string[] = [];
    for (const id of ["a", "b"]) await store.putCustomer(rich(id));
    for (let i = 0; i < 5_000; i++) {
      const id = `o${i}`;
      ids.push(id);
      await store.placeOrder({
        now: i,
        order: {
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
        },
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
