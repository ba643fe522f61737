/**
 * The behaviour every Store adapter must show. Run it against an adapter with
 * `describeStoreContract("redis", () => createRedisStore(...))`.
 */
import { beforeEach, describe, expect, it } from "vitest";
import type { Customer, IdempotencyRecord, Order } from "../../src/domain/model.ts";
import type { Store } from "../../src/domain/ports.ts";

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

function order(id: string, customerId: string, reference: string): Order {
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
      it("keeps, lists, replaces and deletes customers", async () => {
        expect((await store.getCustomer("a"))?.name).toBe("Customer a");
        expect((await store.listCustomers()).map((c) => c.id).sort()).toEqual(["a", "b"]);
        await store.putCustomer(customer("a", { name: "Renamed" }));
        expect((await store.getCustomer("a"))?.name).toBe("Renamed");
        await store.deleteCustomer("a");
        expect(await store.getCustomer("a")).toBeUndefined();
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
        await store.deleteCustomer("a");
        expect(await store.findCustomerByToken("one")).toBeUndefined();
      });

      it("patches a customer's own fields and never its wallets", async () => {
        await store.debitWallet("a", null, 2_500);
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
      it("debits when the balance covers the amount, down to exactly zero", async () => {
        const debit = await store.debitWallet("a", null, 10_000);
        expect(debit).toMatchObject({ kind: "debited", wallet: { shortcode: null, balanceCents: 0 } });
        expect((await store.getCustomer("a"))?.wallets[0]?.balanceCents).toBe(0);
      });

      it("refuses a debit above the balance and leaves the balance alone", async () => {
        const debit = await store.debitWallet("a", "600100", 501);
        expect(debit).toMatchObject({ kind: "insufficient", wallet: { shortcode: "600100", balanceCents: 500 } });
        expect((await store.getCustomer("a"))?.wallets[1]?.balanceCents).toBe(500);
      });

      it("reports an unknown customer or shortcode", async () => {
        expect(await store.debitWallet("nobody", null, 1)).toEqual({ kind: "unknown_wallet" });
        expect(await store.debitWallet("a", "999", 1)).toEqual({ kind: "unknown_wallet" });
        expect(await store.creditWallet("a", "999", 1)).toEqual({ kind: "unknown_wallet" });
      });

      it("credits one wallet without touching the others", async () => {
        const credit = await store.creditWallet("a", "600100", 250);
        expect(credit).toMatchObject({ kind: "debited", wallet: { balanceCents: 750 } });
        const stored = await store.getCustomer("a");
        expect(stored?.wallets.map((w) => w.balanceCents)).toEqual([10_000, 750]);
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

      it("debits atomically: 200 concurrent debits of 1 against 100 succeed exactly 100 times", async () => {
        await store.setWalletBalance("a", null, 100);
        const results = await Promise.all(Array.from({ length: 200 }, () => store.debitWallet("a", null, 1)));
        expect(results.filter((r) => r.kind === "debited")).toHaveLength(100);
        expect(results.filter((r) => r.kind === "insufficient")).toHaveLength(100);
        expect((await store.getCustomer("a"))?.wallets[0]?.balanceCents).toBe(0);
      });
    });

    describe("orders", () => {
      it("inserts a reference once per customer", async () => {
        expect(await store.insertOrder(order("o1", "a", "ref"))).toBe(true);
        expect(await store.insertOrder(order("o2", "a", "ref"))).toBe(false);
        expect(await store.insertOrder(order("o3", "b", "ref"))).toBe(true);
        expect((await store.getOrderByReference("a", "ref"))?.id).toBe("o1");
        expect((await store.getOrderByReference("b", "ref"))?.id).toBe("o3");
        expect(await store.getOrder("o2")).toBeUndefined();
        expect(await store.getOrderByReference("a", "other")).toBeUndefined();
      });

      it("inserts atomically: of 50 concurrent inserts of one reference exactly one wins", async () => {
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) => store.insertOrder(order(`o${i}`, "a", "same"))),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await store.listOrders({ customerId: "a" })).toHaveLength(1);
      });

      it("lists all orders or one customer's", async () => {
        await store.insertOrder(order("o1", "a", "r1"));
        await store.insertOrder(order("o2", "b", "r1"));
        await store.insertOrder(order("o3", "a", "r2"));
        expect((await store.listOrders()).map((o) => o.id).sort()).toEqual(["o1", "o2", "o3"]);
        expect((await store.listOrders({ customerId: "a" })).map((o) => o.id).sort()).toEqual(["o1", "o3"]);
      });

      it("updates an order, and compare-and-sets on its version", async () => {
        const first = order("o1", "a", "r1");
        await store.insertOrder(first);
        expect(await store.updateOrderIf(advanced(first, 20), 2)).toBe(false);
        expect(await store.updateOrderIf(advanced(first, 20), 1)).toBe(true);
        expect((await store.getOrder("o1"))?.status).toBe(20);
        expect(await store.updateOrderIf(advanced(first, 2), 1)).toBe(false);
        expect((await store.getOrder("o1"))?.status).toBe(20);
        await store.updateOrder({ ...(await store.getOrder("o1"))!, message: "changed" });
        expect((await store.getOrderByReference("a", "r1"))?.message).toBe("changed");
        expect(await store.updateOrderIf(advanced(order("ghost", "a", "x"), 20), 1)).toBe(false);
      });

      it("lets exactly one of several concurrent compare-and-sets win", async () => {
        const first = order("o1", "a", "r1");
        await store.insertOrder(first);
        const results = await Promise.all(
          [20, 2, 6, 8].map((status) => store.updateOrderIf(advanced(first, status), 1)),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
      });
    });

    describe("idempotency keys", () => {
      it("claims a key once; later claims see the record", async () => {
        expect(await store.claimIdempotencyKey(keyRecord("a", "k"), NOW)).toEqual({ kind: "claimed" });
        const again = await store.claimIdempotencyKey(keyRecord("a", "k", { fingerprint: "other" }), NOW);
        expect(again).toMatchObject({ kind: "existing", record: { fingerprint: "fp-1" } });
      });

      it("scopes keys per customer", async () => {
        await store.claimIdempotencyKey(keyRecord("a", "k"), NOW);
        expect(await store.claimIdempotencyKey(keyRecord("b", "k"), NOW)).toEqual({ kind: "claimed" });
        expect(await store.getIdempotencyRecord("b", "k", NOW)).toMatchObject({ customerId: "b" });
      });

      it("completes a key with its order and releases it", async () => {
        await store.claimIdempotencyKey(keyRecord("a", "k"), NOW);
        expect((await store.getIdempotencyRecord("a", "k", NOW))?.orderId).toBeUndefined();
        await store.completeIdempotencyKey("a", "k", "o1");
        expect((await store.getIdempotencyRecord("a", "k", NOW))?.orderId).toBe("o1");
        await store.releaseIdempotencyKey("a", "k");
        expect(await store.getIdempotencyRecord("a", "k", NOW)).toBeUndefined();
        expect(await store.claimIdempotencyKey(keyRecord("a", "k"), NOW)).toEqual({ kind: "claimed" });
      });

      it("treats an expired key as absent", async () => {
        await store.claimIdempotencyKey(keyRecord("a", "k", { expiresAt: NOW + 10 }), NOW);
        expect(await store.getIdempotencyRecord("a", "k", NOW + 9)).toBeDefined();
        expect(await store.getIdempotencyRecord("a", "k", NOW + 10)).toBeUndefined();
        const later = await store.claimIdempotencyKey(keyRecord("a", "k", { fingerprint: "new" }), NOW + 10);
        expect(later).toEqual({ kind: "claimed" });
        expect((await store.getIdempotencyRecord("a", "k", NOW + 10))?.fingerprint).toBe("new");
      });

      it("claims atomically: of 50 concurrent claims exactly one wins", async () => {
        const results = await Promise.all(
          Array.from({ length: 50 }, () => store.claimIdempotencyKey(keyRecord("a", "k"), NOW)),
        );
        expect(results.filter((r) => r.kind === "claimed")).toHaveLength(1);
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
    });

    describe("reset", () => {
      it("removes one customer's orders, keys and issued tokens, keeping the customer and the others", async () => {
        await store.insertOrder(order("o1", "a", "r1"));
        await store.insertOrder(order("o2", "b", "r1"));
        await store.claimIdempotencyKey(keyRecord("a", "k"), NOW);
        await store.claimIdempotencyKey(keyRecord("b", "k"), NOW);
        await store.putIssuedToken({ token: "at_a", customerId: "a", issuedAt: NOW, expiresAt: NOW + 1_000 });
        await store.reset("a");
        expect(await store.getOrder("o1")).toBeUndefined();
        expect(await store.getOrderByReference("a", "r1")).toBeUndefined();
        expect(await store.getIdempotencyRecord("a", "k", NOW)).toBeUndefined();
        expect(await store.findCustomerByIssuedToken("at_a", NOW)).toBeUndefined();
        expect(await store.getCustomer("a")).toBeDefined();
        expect(await store.getOrder("o2")).toBeDefined();
        expect(await store.getIdempotencyRecord("b", "k", NOW)).toBeDefined();
        expect(await store.insertOrder(order("o3", "a", "r1"))).toBe(true);
      });

      it("empties everything without a customer", async () => {
        await store.insertOrder(order("o1", "a", "r1"));
        await store.claimIdempotencyKey(keyRecord("a", "k"), NOW);
        await store.reset();
        expect(await store.listCustomers()).toEqual([]);
        expect(await store.listOrders()).toEqual([]);
        expect(await store.findCustomerByToken("tok_a")).toBeUndefined();
        expect(await store.getIdempotencyRecord("a", "k", NOW)).toBeUndefined();
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
        await store.insertOrder(order("o1", "a", "r1"));
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
