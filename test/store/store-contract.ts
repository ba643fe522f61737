/**
 * The behaviour every Store adapter must show. Run it against an adapter with
 * `describeStoreContract("redis", () => createRedisStore(...))`.
 */
import { beforeEach, describe, expect, it } from "vitest";
import type { Customer, IdempotencyRecord, Order } from "../../src/domain/model.ts";
import type { OrderPageQuery, Store } from "../../src/domain/ports.ts";

const NOW = 1_000_000;

function customer(id: string, overrides: Partial<Customer> = {}): Customer {
  return {
    id,
    name: `Customer ${id}`,
    tokens: [`tok_${id}`],
    apiKey: `key_${id}`,
    wallets: [
      { shortcode: null, balanceCents: 10_000, currency: "KES" },
      { shortcode: "600100", balanceCents: 500, currency: "KES" },
    ],
    ...overrides,
  };
}

export function order(id: string, customerId: string, reference: string): Order {
  return {
    id,
    customerId,
    reference,
    service: "safaricom",
    account: "+254712345678",
    amountCents: 1_000,
    currency: "KES",
    shortcode: null,
    status: 0,
    message: "Pending",
    createdAt: NOW,
    updatedAt: NOW,
    history: [{ status: 0, message: "Pending", at: NOW }],
  };
}

/** Stores an order the way the simulator does: placed in one step, its amount debited. True when placed. */
async function placedIn(store: Store, stored: Order, now = NOW): Promise<boolean> {
  return (await store.placeOrder({ order: stored, now })).kind === "placed";
}

/** The live record of an idempotency key, as placing under it again shows it (nothing changes then). */
export async function liveKey(
  store: Store,
  customerId: string,
  key: string,
  now = NOW,
): Promise<IdempotencyRecord | undefined> {
  // A probe the balance refuses when the key is absent: only a live key answers before the debit.
  const probe = { ...order("probe", customerId, "probe-ref"), shortcode: "no-such-wallet" };
  const record = { customerId, key, fingerprint: "probe", expiresAt: now + 1, orderId: "probe" };
  const result = await store.placeOrder({ order: probe, key: record, now });
  if (result.kind === "placed") throw new Error("the probe was placed");
  return result.kind === "existing" ? result.record : undefined;
}

function keyRecord(customerId: string, key: string, overrides: Partial<IdempotencyRecord> = {}): IdempotencyRecord {
  return { customerId, key, fingerprint: "fp-1", expiresAt: NOW + 1_000, ...overrides };
}

function advanced(stored: Order, status: number): Order {
  return {
    ...stored,
    status,
    message: String(status),
    history: [...stored.history, { status, message: String(status), at: NOW + 1 }],
  };
}

/** Tries to change a record in place; an adapter may refuse (frozen) or ignore it (a copy). */
function tamper(record: object): void {
  try {
    (record as { name?: string }).name = "tampered";
    (record as { wallets?: { balanceCents: number }[] }).wallets?.splice(0, 1);
    (record as { history?: unknown[] }).history?.push({ status: 99 });
  } catch {
    // A frozen record refuses the change, which is just as good.
  }
}

export function describeStoreContract(name: string, makeStore: () => Store | Promise<Store>): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await makeStore();
      await store.putCustomer(customer("a"));
      await store.putCustomer(customer("b"));
    });

    describe("customers", () => {
      it("keeps, lists and replaces customers", async () => {
        expect((await store.getCustomer("a"))?.name).toBe("Customer a");
        expect((await store.listCustomers()).map((c) => c.id).sort()).toEqual(["a", "b"]);
        await store.putCustomer(customer("a", { name: "Renamed" }));
        expect((await store.getCustomer("a"))?.name).toBe("Renamed");
        expect(await store.getCustomer("nobody")).toBeUndefined();
      });

      it("finds a customer by any of its static tokens, and only by a current one", async () => {
        await store.putCustomer(customer("a", { tokens: ["one", "two"] }));
        expect((await store.findCustomerByToken("one"))?.id).toBe("a");
        expect((await store.findCustomerByToken("two"))?.id).toBe("a");
        expect((await store.findCustomerByToken("tok_b"))?.id).toBe("b");
        expect(await store.findCustomerByToken("tok_a")).toBeUndefined();
        expect(await store.findCustomerByToken("on")).toBeUndefined();
        expect(await store.findCustomerByToken("")).toBeUndefined();
        await store.putCustomer(customer("a", { tokens: ["three"] }));
        expect(await store.findCustomerByToken("one")).toBeUndefined();
        expect((await store.findCustomerByToken("three"))?.id).toBe("a");
      });

      it("patches a customer's own fields and never its wallets", async () => {
        await store.setWalletBalance("a", null, 7_500);
        const patched = await store.patchCustomer("a", {
          name: "Patched",
          tokens: ["fresh"],
          webhook: { url: "http://127.0.0.1:9/hook", secrets: ["whsec_x"] },
        });
        expect(patched?.name).toBe("Patched");
        expect(patched?.wallets[0]?.balanceCents).toBe(7_500);
        expect((await store.findCustomerByToken("fresh"))?.id).toBe("a");
        expect(await store.findCustomerByToken("tok_a")).toBeUndefined();
        expect((await store.getCustomer("a"))?.webhook?.url).toBe("http://127.0.0.1:9/hook");
        const cleared = await store.patchCustomer("a", { webhook: null });
        expect(cleared?.webhook).toBeUndefined();
        expect(cleared?.tokens).toEqual(["fresh"]);
        expect(await store.patchCustomer("nobody", { name: "x" })).toBeUndefined();
      });
    });

    describe("wallets", () => {
      it("debits an order's amount when the balance covers it, down to exactly zero", async () => {
        expect(await placedIn(store, { ...order("o1", "a", "r1"), amountCents: 10_000 })).toBe(true);
        expect((await store.getCustomer("a"))?.wallets[0]?.balanceCents).toBe(0);
      });

      it("refuses an order above the balance and leaves the balance alone", async () => {
        const result = await store.placeOrder({
          order: { ...order("o1", "a", "r1"), shortcode: "600100", amountCents: 501 },
          now: NOW,
        });
        expect(result).toMatchObject({ kind: "insufficient", wallet: { shortcode: "600100", balanceCents: 500 } });
        expect((await store.getCustomer("a"))?.wallets[1]?.balanceCents).toBe(500);
      });

      it("reports an unknown customer or shortcode", async () => {
        const unknown = { kind: "unknown_wallet" };
        expect(await store.placeOrder({ order: order("o1", "nobody", "r1"), now: NOW })).toEqual(unknown);
        expect(await store.placeOrder({ order: { ...order("o2", "a", "r2"), shortcode: "999" }, now: NOW })).toEqual(
          unknown,
        );
      });

      it("refunds to the order's own wallet without touching the others", async () => {
        const small = { ...order("o1", "a", "r1"), shortcode: "600100", amountCents: 250 };
        expect(await placedIn(store, small)).toBe(true);
        expect(await store.updateOrderIf(advanced(small, 2), 1, true)).toBe(true);
        const stored = await store.getCustomer("a");
        expect(stored?.wallets.map((w) => w.balanceCents)).toEqual([10_000, 500]);
        expect((await store.getCustomer("b"))?.wallets[1]?.balanceCents).toBe(500);
      });

      it("sets a balance, or adds the wallet when the customer lacks it", async () => {
        expect(await store.setWalletBalance("a", null, 42)).toMatchObject({ shortcode: null, balanceCents: 42 });
        expect(await store.setWalletBalance("a", "777", 9, "KES")).toMatchObject({ shortcode: "777", balanceCents: 9 });
        expect((await store.getCustomer("a"))?.wallets.map((w) => [w.shortcode, w.balanceCents])).toEqual([
          [null, 42],
          ["600100", 500],
          ["777", 9],
        ]);
        expect(await store.setWalletBalance("nobody", null, 1)).toBeUndefined();
      });

      it("debits atomically: 200 concurrent orders of 1 against 100 succeed exactly 100 times", async () => {
        await store.setWalletBalance("a", null, 100);
        const results = await Promise.all(
          Array.from({ length: 200 }, (_, i) =>
            store.placeOrder({ order: { ...order(`o${i}`, "a", `r${i}`), amountCents: 1 }, now: NOW }),
          ),
        );
        expect(results.filter((r) => r.kind === "placed")).toHaveLength(100);
        expect(results.filter((r) => r.kind === "insufficient")).toHaveLength(100);
        expect((await store.getCustomer("a"))?.wallets[0]?.balanceCents).toBe(0);
      });
    });

    describe("orders", () => {
      it("places a reference once per customer", async () => {
        expect(await placedIn(store, order("o1", "a", "ref"))).toBe(true);
        expect(await store.placeOrder({ order: order("o2", "a", "ref"), now: NOW })).toEqual({
          kind: "duplicate_reference",
        });
        expect(await placedIn(store, order("o3", "b", "ref"))).toBe(true);
        expect((await store.getOrderByReference("a", "ref"))?.id).toBe("o1");
        expect((await store.getOrderByReference("b", "ref"))?.id).toBe("o3");
        expect(await store.getOrder("o2")).toBeUndefined();
        expect(await store.getOrderByReference("a", "other")).toBeUndefined();
      });

      it("places atomically: of 50 concurrent placements of one reference exactly one wins", async () => {
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) => placedIn(store, order(`o${i}`, "a", "same"))),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await store.listOrders({ customerId: "a" })).toHaveLength(1);
      });

      it("lists all orders or one customer's", async () => {
        expect(await placedIn(store, order("o1", "a", "r1"))).toBe(true);
        expect(await placedIn(store, order("o2", "b", "r1"))).toBe(true);
        expect(await placedIn(store, order("o3", "a", "r2"))).toBe(true);
        expect((await store.listOrders()).map((o) => o.id).sort()).toEqual(["o1", "o2", "o3"]);
        expect((await store.listOrders({ customerId: "a" })).map((o) => o.id).sort()).toEqual(["o1", "o3"]);
      });

      it("updates an order, and compare-and-sets on its version", async () => {
        const first = order("o1", "a", "r1");
        expect(await placedIn(store, first)).toBe(true);
        expect(await store.updateOrderIf(advanced(first, 20), 2)).toBe(false);
        expect(await store.updateOrderIf(advanced(first, 20), 1)).toBe(true);
        expect((await store.getOrder("o1"))?.status).toBe(20);
        expect(await store.updateOrderIf(advanced(first, 2), 1)).toBe(false);
        expect((await store.getOrder("o1"))?.status).toBe(20);
        expect(await store.updateOrderIf({ ...(await store.getOrder("o1"))!, message: "changed" }, 2)).toBe(true);
        expect((await store.getOrderByReference("a", "r1"))?.message).toBe("changed");
        expect(await store.updateOrderIf(advanced(order("ghost", "a", "x"), 20), 1)).toBe(false);
      });

      it("lets exactly one of several concurrent compare-and-sets win", async () => {
        const first = order("o1", "a", "r1");
        expect(await placedIn(store, first)).toBe(true);
        const results = await Promise.all(
          [20, 2, 6, 8].map((status) => store.updateOrderIf(advanced(first, status), 1)),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
      });

      it("credits a refund in the same step as the change it follows, and only when the change is stored", async () => {
        await store.putCustomer(customer("r"));
        await store.setWalletBalance("r", "600100", 1_500);
        const first = { ...order("o1", "r", "r1"), shortcode: "600100" };
        expect(await placedIn(store, first)).toBe(true);
        // A change that lost its race refunds nothing.
        expect(await store.updateOrderIf(advanced(first, 2), 2, true)).toBe(false);
        expect((await store.getCustomer("r"))?.wallets[1]?.balanceCents).toBe(500);
        expect(await store.updateOrderIf(advanced(first, 2), 1, true)).toBe(true);
        expect((await store.getCustomer("r"))?.wallets.map((w) => w.balanceCents)).toEqual([10_000, 1_500]);
        // Racing refunds of one order: one change is stored, one refund is given.
        const second = { ...order("o2", "r", "r2"), shortcode: "600100" };
        expect(await placedIn(store, second)).toBe(true);
        await Promise.all([2, 6, 8].map((status) => store.updateOrderIf(advanced(second, status), 1, true)));
        expect((await store.getCustomer("r"))?.wallets[1]?.balanceCents).toBe(1_500);
        // The wallet gone meanwhile: the change is stored, nothing is credited.
        await store.putCustomer(customer("gone"));
        expect(await placedIn(store, order("o3", "gone", "r3"))).toBe(true);
        await store.putCustomer(customer("gone", { wallets: [] }));
        expect(await store.updateOrderIf(advanced(order("o3", "gone", "r3"), 2), 1, true)).toBe(true);
        expect((await store.getOrder("o3"))?.status).toBe(2);
        expect((await store.getCustomer("gone"))?.wallets).toEqual([]);
      });
    });

    describe("order pages", () => {
      async function insertSpread(): Promise<void> {
        // Three customers' orders, one a millisecond, references r0…r9.
        for (let i = 0; i < 10; i++) {
          const owner = ["a", "b", "a"][i % 3] as string;
          const placed = { ...order(`o${i}`, owner, `r${i}`), createdAt: NOW + i, updatedAt: NOW + i };
          expect(await placedIn(store, i % 4 === 0 ? advanced(placed, 20) : placed)).toBe(true);
        }
      }
      async function allPages(query: Omit<OrderPageQuery, "cursor">): Promise<string[][]> {
        const pages: string[][] = [];
        let cursor: string | null | undefined;
        do {
          const page = await store.listOrderPage({ ...query, ...(cursor == null ? {} : { cursor }) });
          pages.push(page.orders.map((o) => o.id));
          cursor = page.nextCursor;
        } while (cursor !== null && pages.length < 20);
        return pages;
      }

      it("pages through all orders, oldest first, with a cursor", async () => {
        await insertSpread();
        const pages = await allPages({ limit: 4 });
        expect(pages.flat()).toEqual(["o0", "o1", "o2", "o3", "o4", "o5", "o6", "o7", "o8", "o9"]);
        expect(pages[0]).toEqual(["o0", "o1", "o2", "o3"]);
        expect((await store.listOrderPage({ limit: 100 })).nextCursor).toBeNull();
      });

      it("pages newest first, with the same filters, when asked", async () => {
        await insertSpread();
        const pages = await allPages({ limit: 4, newestFirst: true });
        expect(pages.flat()).toEqual(["o9", "o8", "o7", "o6", "o5", "o4", "o3", "o2", "o1", "o0"]);
        expect(pages[0]).toEqual(["o9", "o8", "o7", "o6"]);
        expect((await allPages({ limit: 2, customerId: "a", newestFirst: true })).flat()).toEqual([
          "o9",
          "o8",
          "o6",
          "o5",
          "o3",
          "o2",
          "o0",
        ]);
        expect((await allPages({ limit: 2, status: 20, newestFirst: true })).flat()).toEqual(["o8", "o4", "o0"]);
        expect((await allPages({ limit: 3, from: NOW + 3, to: NOW + 6, newestFirst: true })).flat()).toEqual([
          "o6",
          "o5",
          "o4",
          "o3",
        ]);
        expect((await allPages({ limit: 5, reference: "r4", newestFirst: true })).flat()).toEqual(["o4"]);
        expect(await store.evictOrder("o9", 1, NOW + 1_000, NOW)).toBe(true);
        expect((await store.listOrderPage({ limit: 1, newestFirst: true })).orders.map((o) => o.id)).toEqual(["o8"]);
      });

      it("filters by customer, status, reference, reference prefix and creation time", async () => {
        await insertSpread();
        expect(await placedIn(store, { ...order("o10", "b", "x-1"), createdAt: NOW + 10, updatedAt: NOW + 10 })).toBe(
          true,
        );
        expect((await allPages({ limit: 2, customerId: "b" })).flat()).toEqual(["o1", "o4", "o7", "o10"]);
        expect((await allPages({ limit: 2, status: 20 })).flat()).toEqual(["o0", "o4", "o8"]);
        expect((await allPages({ limit: 2, customerId: "a", status: 0 })).flat()).toEqual([
          "o2",
          "o3",
          "o5",
          "o6",
          "o9",
        ]);
        expect((await allPages({ limit: 5, reference: "r4" })).flat()).toEqual(["o4"]);
        expect((await allPages({ limit: 5, reference: "r4", customerId: "a" })).flat()).toEqual([]);
        expect((await allPages({ limit: 5, referencePrefix: "x-" })).flat()).toEqual(["o10"]);
        expect((await allPages({ limit: 3, from: NOW + 3, to: NOW + 6 })).flat()).toEqual(["o3", "o4", "o5", "o6"]);
      });

      it("counts orders and leaves evicted ones out of every page", async () => {
        await insertSpread();
        expect(await store.countOrders()).toBe(10);
        expect(await store.evictOrder("o0", 2, NOW + 1_000, NOW)).toBe(true);
        expect(await store.evictOrder("o4", 2, NOW + 1_000, NOW)).toBe(true);
        expect(await store.countOrders()).toBe(8);
        expect(await store.countOrdersByStatus()).toEqual(
          new Map([
            [0, 7],
            [20, 1],
          ]),
        );
        expect((await allPages({ limit: 3 })).flat()).toEqual(["o1", "o2", "o3", "o5", "o6", "o7", "o8", "o9"]);
        expect((await allPages({ limit: 3, customerId: "b" })).flat()).toEqual(["o1", "o7"]);
        // The counts follow a status change (not a change that lost its race), a customer's reset, a whole reset.
        const o1 = (await store.getOrder("o1")) as Order;
        expect(await store.updateOrderIf(advanced(o1, 6), 1)).toBe(true);
        expect(await store.updateOrderIf(advanced(o1, 20), 1)).toBe(false);
        expect(await store.countOrdersByStatus()).toEqual(
          new Map([
            [0, 6],
            [20, 1],
            [6, 1],
          ]),
        );
        await store.reset("b");
        expect(await store.countOrdersByStatus()).toEqual(
          new Map([
            [0, 5],
            [20, 1],
          ]),
        );
        await store.reset();
        expect(await store.countOrdersByStatus()).toEqual(new Map());
      });
    });

    describe("evicted orders", () => {
      it("leaves a record with id, reference and final status until its retention ends", async () => {
        const placed = order("o1", "a", "r1");
        expect(await placedIn(store, placed)).toBe(true);
        const final = advanced(placed, 20);
        expect(await store.updateOrderIf(final, 1)).toBe(true);
        expect(await store.evictOrder("o1", 2, NOW + 1_000, NOW + 10)).toBe(true);
        expect(await store.getOrder("o1")).toBeUndefined();
        expect(await store.getOrderByReference("a", "r1")).toBeUndefined();
        expect(await store.getEvictedOrder("o1", NOW + 10)).toMatchObject({
          id: "o1",
          customerId: "a",
          reference: "r1",
          status: 20,
          message: "20",
          keptUntil: NOW + 1_000,
        });
        expect((await store.getEvictedOrderByReference("a", "r1", NOW + 999))?.id).toBe("o1");
        expect(await store.getEvictedOrderByReference("b", "r1", NOW + 10)).toBeUndefined();
        expect(await store.countEvictedOrders(NOW + 10)).toBe(1);
        // The reference stays taken while the record is kept.
        expect(await placedIn(store, order("o2", "a", "r1"), NOW + 10)).toBe(false);
        expect(await store.getEvictedOrder("o1", NOW + 1_000)).toBeUndefined();
        expect(await store.countEvictedOrders(NOW + 1_000)).toBe(0);
      });

      it("frees the reference of an order evicted after its retention", async () => {
        expect(await placedIn(store, order("o1", "a", "r1"))).toBe(true);
        expect(await store.evictOrder("o1", 1, NOW, NOW)).toBe(true);
        expect(await store.getEvictedOrder("o1", NOW)).toBeUndefined();
        expect(await placedIn(store, order("o2", "a", "r1"))).toBe(true);
      });

      it("evicts only the version it was given, and only once", async () => {
        const placed = order("o1", "a", "r1");
        expect(await placedIn(store, placed)).toBe(true);
        await store.updateOrderIf(advanced(placed, 20), 1);
        expect(await store.evictOrder("o1", 1, NOW + 1_000, NOW)).toBe(false);
        expect(await store.getOrder("o1")).toBeDefined();
        expect(await store.evictOrder("o1", 2, NOW + 1_000, NOW)).toBe(true);
        expect(await store.evictOrder("o1", 2, NOW + 1_000, NOW)).toBe(false);
        expect(await store.evictOrder("ghost", 1, NOW + 1_000, NOW)).toBe(false);
      });

      it("lists eviction candidates oldest first, with what the eviction reads of each", async () => {
        const first = order("o1", "a", "r1");
        expect(await placedIn(store, first)).toBe(true);
        expect(await store.updateOrderIf({ ...advanced(first, 20), updatedAt: NOW + 7 }, 1)).toBe(true);
        expect(await placedIn(store, { ...order("o2", "b", "r2"), createdAt: NOW + 1, updatedAt: NOW + 1 })).toBe(true);
        expect(await placedIn(store, { ...order("o3", "a", "r3"), createdAt: NOW + 2, updatedAt: NOW + 2 })).toBe(true);
        await store.evictOrder("o3", 1, NOW + 1_000, NOW);
        const seen: object[] = [];
        let cursor: string | null | undefined;
        do {
          const page = await store.listEvictionCandidates({ limit: 1, ...(cursor == null ? {} : { cursor }) });
          // Only the candidate's fields: an adapter may hand over a richer object of its own.
          for (const { id, customerId, reference, status, message, createdAt, updatedAt, version } of page.candidates) {
            seen.push({ id, customerId, reference, status, message, createdAt, updatedAt, version });
          }
          cursor = page.nextCursor;
        } while (cursor !== null);
        // What a caller holds cannot change the store, whether the adapter hands over a copy or a frozen record.
        const [held] = (await store.listEvictionCandidates({ limit: 1 })).candidates;
        try {
          (held as { status: number }).status = 99;
        } catch {
          // A frozen record refuses the write.
        }
        expect((await store.listEvictionCandidates({ limit: 1 })).candidates[0]?.status).toBe(20);
        expect(seen).toEqual(
          [
            { id: "o1", customerId: "a", reference: "r1", status: 20, message: "20" },
            { id: "o2", customerId: "b", reference: "r2", status: 0, message: "Pending" },
          ].map((fields, at) => ({
            ...fields,
            createdAt: NOW + at,
            updatedAt: [NOW + 7, NOW + 1][at],
            version: 2 - at,
          })),
        );
      });

      it("forgets a customer's evicted orders on reset", async () => {
        expect(await placedIn(store, order("o1", "a", "r1"))).toBe(true);
        await store.evictOrder("o1", 1, NOW + 1_000, NOW);
        await store.reset("a");
        expect(await store.getEvictedOrder("o1", NOW)).toBeUndefined();
        expect(await placedIn(store, order("o2", "a", "r1"))).toBe(true);
      });
    });

    describe("placing an order in one step", () => {
      const place = (id: string, customerId: string, reference: string, key?: IdempotencyRecord, now = NOW) =>
        store.placeOrder({ order: order(id, customerId, reference), now, ...(key === undefined ? {} : { key }) });

      it("keeps the order, debits its amount and binds the key to it", async () => {
        const key = keyRecord("a", "k", { orderId: "o1" });
        expect(await place("o1", "a", "r1", key)).toEqual({ kind: "placed" });
        expect((await store.getOrderByReference("a", "r1"))?.id).toBe("o1");
        expect((await store.getCustomer("a"))?.wallets[0]?.balanceCents).toBe(9_000);
        expect(await liveKey(store, "a", "k")).toEqual(key);
      });

      it("answers a live key with its record and changes nothing", async () => {
        const key = keyRecord("a", "k", { orderId: "o1" });
        await place("o1", "a", "r1", key);
        const again = await place("o2", "a", "r2", keyRecord("a", "k", { fingerprint: "other", orderId: "o2" }));
        expect(again).toEqual({ kind: "existing", record: key });
        expect(await store.getOrder("o2")).toBeUndefined();
        expect((await store.getCustomer("a"))?.wallets[0]?.balanceCents).toBe(9_000);
      });

      it("refuses a used reference, a short balance and an unknown wallet without keeping anything", async () => {
        await place("o1", "a", "r1");
        expect(await place("o2", "a", "r1", keyRecord("a", "k2", { orderId: "o2" }))).toEqual({
          kind: "duplicate_reference",
        });
        for (let i = 0; i < 9; i++) await place(`f${i}`, "a", `fill${i}`);
        expect(await place("o3", "a", "r3", keyRecord("a", "k3", { orderId: "o3" }))).toEqual({
          kind: "insufficient",
          wallet: { shortcode: null, balanceCents: 0, currency: "KES" },
        });
        expect(await place("o4", "nobody", "r4")).toEqual({ kind: "unknown_wallet" });
        expect(await liveKey(store, "a", "k2")).toBeUndefined();
        expect(await liveKey(store, "a", "k3")).toBeUndefined();
        expect((await store.listOrders({ customerId: "a" })).map((o) => o.id)).not.toContain("o3");
      });

      it("scopes keys per customer", async () => {
        await place("o1", "a", "r1", keyRecord("a", "k", { orderId: "o1" }));
        expect(await place("o2", "b", "r1", keyRecord("b", "k", { orderId: "o2" }))).toEqual({ kind: "placed" });
        expect(await liveKey(store, "b", "k")).toMatchObject({ customerId: "b", orderId: "o2" });
      });

      it("treats an expired key as absent, and binds it afresh", async () => {
        await place("o1", "a", "r1", keyRecord("a", "k", { expiresAt: NOW + 10, orderId: "o1" }));
        expect(await liveKey(store, "a", "k", NOW + 9)).toBeDefined();
        expect(await liveKey(store, "a", "k", NOW + 10)).toBeUndefined();
        const later = keyRecord("a", "k", { fingerprint: "new", expiresAt: NOW + 100, orderId: "o2" });
        expect(await place("o2", "a", "r2", later, NOW + 10)).toEqual({ kind: "placed" });
        expect((await liveKey(store, "a", "k", NOW + 10))?.fingerprint).toBe("new");
      });

      it("is atomic: of 50 concurrent placements with one key exactly one is placed and debited", async () => {
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) => place(`o${i}`, "a", `r${i}`, keyRecord("a", "k", { orderId: `o${i}` }))),
        );
        expect(results.filter((r) => r.kind === "placed")).toHaveLength(1);
        expect((await store.getCustomer("a"))?.wallets[0]?.balanceCents).toBe(9_000);
      });

      it("is atomic: 50 concurrent placements against a balance for 10 place exactly 10", async () => {
        const results = await Promise.all(Array.from({ length: 50 }, (_, i) => place(`o${i}`, "a", `r${i}`)));
        expect(results.filter((r) => r.kind === "placed")).toHaveLength(10);
        expect((await store.getCustomer("a"))?.wallets[0]?.balanceCents).toBe(0);
      });
    });

    describe("issued tokens", () => {
      it("finds the customer until the token expires", async () => {
        await store.putIssuedToken({ token: "at_1", customerId: "a", issuedAt: NOW, expiresAt: NOW + 60_000 });
        expect((await store.findCustomerByIssuedToken("at_1", NOW + 59_999))?.id).toBe("a");
        expect(await store.findCustomerByIssuedToken("at_1", NOW + 60_000)).toBeUndefined();
        expect(await store.findCustomerByIssuedToken("at_2", NOW)).toBeUndefined();
        expect(await store.findCustomerByToken("at_1")).toBeUndefined();
      });

      it("sweeps expired tokens as new ones are issued, without anyone presenting them", async () => {
        for (let i = 0; i < 50; i++) {
          await store.putIssuedToken({ token: `at_${i}`, customerId: "a", issuedAt: NOW, expiresAt: NOW + 1_000 });
        }
        expect(await store.countIssuedTokens()).toBe(50);
        await store.putIssuedToken({ token: "late", customerId: "b", issuedAt: NOW + 1_000, expiresAt: NOW + 2_000 });
        expect(await store.countIssuedTokens()).toBe(1);
        expect((await store.findCustomerByIssuedToken("late", NOW + 1_500))?.id).toBe("b");
      });
    });

    describe("reset", () => {
      it("removes one customer's orders, keys and issued tokens, keeping the customer and the others", async () => {
        expect(await placedIn(store, order("o1", "a", "r1"))).toBe(true);
        expect(await placedIn(store, order("o2", "b", "r1"))).toBe(true);
        await store.placeOrder({
          order: order("o4", "a", "r4"),
          key: keyRecord("a", "k", { orderId: "o4" }),
          now: NOW,
        });
        await store.placeOrder({
          order: order("o5", "b", "r5"),
          key: keyRecord("b", "k", { orderId: "o5" }),
          now: NOW,
        });
        await store.putIssuedToken({ token: "at_a", customerId: "a", issuedAt: NOW, expiresAt: NOW + 1_000 });
        await store.reset("a");
        expect(await store.getOrder("o1")).toBeUndefined();
        expect(await store.getOrderByReference("a", "r1")).toBeUndefined();
        expect(await liveKey(store, "a", "k")).toBeUndefined();
        expect(await store.findCustomerByIssuedToken("at_a", NOW)).toBeUndefined();
        expect(await store.getCustomer("a")).toBeDefined();
        expect(await store.getOrder("o2")).toBeDefined();
        expect(await liveKey(store, "b", "k")).toBeDefined();
        expect(await placedIn(store, order("o3", "a", "r1"))).toBe(true);
      });

      it("empties everything without a customer", async () => {
        await store.placeOrder({
          order: order("o1", "a", "r1"),
          key: keyRecord("a", "k", { orderId: "o1" }),
          now: NOW,
        });
        await store.reset();
        expect(await store.listCustomers()).toEqual([]);
        expect(await store.listOrders()).toEqual([]);
        expect(await store.findCustomerByToken("tok_a")).toBeUndefined();
        await store.putCustomer(customer("a"));
        expect(await liveKey(store, "a", "k")).toBeUndefined();
      });
    });

    describe("isolation of stored records", () => {
      it("is not changed through the object that was stored", async () => {
        const input = { ...customer("c"), wallets: [{ shortcode: null, balanceCents: 5, currency: "KES" }] };
        await store.putCustomer(input);
        input.wallets[0]!.balanceCents = 999;
        input.name = "changed afterwards";
        expect(await store.getCustomer("c")).toMatchObject({ name: "Customer c", wallets: [{ balanceCents: 5 }] });
      });

      it("is not changed through an object that was read", async () => {
        expect(await placedIn(store, order("o1", "a", "r1"))).toBe(true);
        tamper((await store.getCustomer("a"))!);
        tamper((await store.getOrder("o1"))!);
        tamper((await store.listOrders())[0]!);
        expect((await store.getCustomer("a"))?.name).toBe("Customer a");
        expect((await store.getCustomer("a"))?.wallets).toHaveLength(2);
        expect((await store.getOrder("o1"))?.history).toHaveLength(1);
      });
    });
  });
}
