/**
 * The behaviour every DeliveryStore adapter must show. Run it against an
 * adapter with `describeDeliveryStoreContract("redis", () => createRedisDeliveryStore(...))`.
 */
import { describe, expect, it } from "vitest";
import type { Delivery, DeliveryAttempt, DeliveryPageQuery, DeliveryStore } from "../../src/webhooks/ports.ts";

export function delivery(id: string, customerId: string, overrides: Partial<Delivery> = {}): Delivery {
  return {
    id,
    messageId: `msg_${id}`,
    kind: "status",
    customerId,
    orderId: `ord_${id}`,
    reference: `REF-${id}`,
    status: 20,
    final: true,
    body: "{}",
    state: "pending",
    createdAt: 0,
    nextAttemptAt: 0,
    nextJobId: `${id}/0`,
    scheduleIndex: 0,
    attemptCount: 0,
    deliveredAt: null,
    badSignature: false,
    ...overrides,
  };
}

const attempt = (deliveryId: string, number: number, customerId = "a"): DeliveryAttempt => ({
  deliveryId,
  messageId: `msg_${deliveryId}`,
  customerId,
  orderId: "o",
  reference: "r",
  number,
  trigger: "schedule",
  scheduledAt: 0,
  sentAt: 0,
  sentAtWall: 0,
  url: "http://x",
  requestHeaders: {},
  requestBody: "{}",
  responseStatus: 200,
  error: null,
  latencyMs: 1,
  outcome: "delivered",
});

/** Every page of a listing, following the cursors; the ids in the order listed. */
async function allPages(store: DeliveryStore, query: DeliveryPageQuery): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 1_000; pages++) {
    const page = await store.listPage({ ...query, ...(cursor === undefined ? {} : { cursor }) });
    expect(page.deliveries.length).toBeLessThanOrEqual(query.limit);
    ids.push(...page.deliveries.map((d) => d.id));
    if (page.nextCursor === null) return ids;
    cursor = page.nextCursor;
  }
  throw new Error("the listing never ended");
}

export function describeDeliveryStoreContract(name: string, create: () => DeliveryStore): void {
  describe(`the ${name} delivery store`, () => {
    it("filters by customer, order, reference, state and message id, in creation order", async () => {
      const store = create();
      expect(await store.insert(delivery("1", "a"))).toBe(true);
      await store.insert(delivery("2", "b", { state: "failed" }));
      await store.insert(delivery("3", "a", { state: "failed" }));
      expect((await store.list()).map((d) => d.id)).toEqual(["1", "2", "3"]);
      expect((await store.list({ customerId: "a" })).map((d) => d.id)).toEqual(["1", "3"]);
      expect((await store.list({ state: "failed" })).map((d) => d.id)).toEqual(["2", "3"]);
      expect((await store.list({ customerId: "a", state: "failed" })).map((d) => d.id)).toEqual(["3"]);
      expect((await store.list({ orderId: "ord_2" })).map((d) => d.id)).toEqual(["2"]);
      expect((await store.list({ reference: "REF-1" })).map((d) => d.id)).toEqual(["1"]);
      expect((await store.list({ referencePrefix: "REF-" })).map((d) => d.id)).toEqual(["1", "2", "3"]);
      expect((await store.list({ messageId: "msg_3" })).map((d) => d.id)).toEqual(["3"]);
      expect(await store.list({ customerId: "nobody" })).toEqual([]);
    });

    it("inserts a delivery only if its id is new, keeping the first one whole", async () => {
      const store = create();
      await store.insert(delivery("1", "a"));
      // A change announced again derives the same id: the delivery made the first time stands.
      expect(await store.insert(delivery("1", "a", { state: "failed" }))).toBe(false);
      expect(await store.insert(delivery("1", "b"))).toBe(false);
      expect(await store.list()).toEqual([delivery("1", "a")]);
      expect(await store.list({ customerId: "b" })).toEqual([]);
      expect(await store.list({ orderId: "ord_1" })).toHaveLength(1);
    });

    it("gives back what it was given, and lists an order's several deliveries together", async () => {
      const original = delivery("1", "a", { followUp: { status: 0, body: "{}" }, reason: "why" });
      const store = create();
      await store.insert(original);
      await store.insert(delivery("2", "a", { orderId: "ord_1", kind: "duplicate", parentId: "1" }));
      expect(await store.get("1")).toEqual(original);
      expect(await store.get("missing")).toBeUndefined();
      expect((await store.list({ orderId: "ord_1" })).map((d) => d.id)).toEqual(["1", "2"]);
    });

    it("keeps records apart from what callers hold, and updates atomically", async () => {
      const store = create();
      const original = delivery("1", "a") as { state: string };
      await store.insert(original as ReturnType<typeof delivery>);
      original.state = "failed";
      const read = (await store.get("1")) as { state: string };
      // An adapter may refuse the change (frozen) or ignore it (a copy).
      try {
        read.state = "delivered";
      } catch {
        // frozen
      }
      expect((await store.get("1"))?.state).toBe("pending");
      const updates = await Promise.all(
        Array.from({ length: 50 }, () => store.update("1", (d) => ({ ...d, attemptCount: d.attemptCount + 1 }))),
      );
      expect(updates.map((d) => d?.attemptCount).sort((x = 0, y = 0) => x - y)).toEqual(
        Array.from({ length: 50 }, (_, i) => i + 1),
      );
      expect((await store.get("1"))?.attemptCount).toBe(50);
      expect(await store.update("missing", (d) => d)).toBeUndefined();
    });

    it("keeps attempts in order per delivery", async () => {
      const store = create();
      await store.insert(delivery("1", "a"));
      await store.insert(delivery("2", "a"));
      for (const number of [1, 2, 3]) await store.addAttempt(attempt("1", number));
      await store.addAttempt(attempt("2", 1));
      expect((await store.attempts("1")).map((a) => a.number)).toEqual([1, 2, 3]);
      expect(await store.attempts("2")).toEqual([attempt("2", 1)]);
      expect(await store.attempts("missing")).toEqual([]);
    });

    it("pages in creation order with a cursor, by customer, filter and creation window", async () => {
      const store = create();
      for (let i = 1; i <= 30; i++) {
        await store.insert(
          delivery(String(i), i % 3 === 0 ? "b" : "a", {
            createdAt: i * 10,
            state: i % 2 === 0 ? "failed" : "pending",
          }),
        );
      }
      const every = Array.from({ length: 30 }, (_, i) => String(i + 1));
      expect(await allPages(store, { limit: 7 })).toEqual(every);
      expect(await allPages(store, { limit: 100 })).toEqual(every);
      expect(await allPages(store, { limit: 4, customerId: "b" })).toEqual(every.filter((id) => Number(id) % 3 === 0));
      expect(await allPages(store, { limit: 3, state: "failed", customerId: "a" })).toEqual(
        every.filter((id) => Number(id) % 2 === 0 && Number(id) % 3 !== 0),
      );
      expect(await allPages(store, { limit: 5, from: 95, to: 205 })).toEqual(
        every.filter((id) => Number(id) >= 10 && Number(id) <= 20),
      );
      expect(await allPages(store, { limit: 5, orderId: "ord_7" })).toEqual(["7"]);
      await expect(store.listPage({ limit: 5, cursor: "not a cursor!" })).rejects.toThrow(RangeError);
    });

    it("forgets the deliveries and attempts of removed orders, and only theirs", async () => {
      const store = create();
      await store.insert(delivery("1", "a"));
      await store.insert(delivery("2", "a", { orderId: "ord_1", kind: "duplicate" }));
      await store.insert(delivery("3", "b"));
      await store.insert(delivery("4", "a"));
      await store.addAttempt(attempt("1", 1));
      await store.addAttempt(attempt("3", 1, "b"));
      await store.removeOrders(["ord_1", "ord_3", "ord_unknown"]);
      expect((await store.list()).map((d) => d.id)).toEqual(["4"]);
      expect(await store.get("1")).toBeUndefined();
      expect(await store.attempts("1")).toEqual([]);
      expect(await store.attempts("3")).toEqual([]);
      expect(await store.list({ orderId: "ord_1" })).toEqual([]);
      expect(await allPages(store, { limit: 2 })).toEqual(["4"]);
      await store.removeOrders([]);
      expect(await store.get("4")).toBeDefined();
    });

    it("reset forgets one customer's deliveries and attempts, or all; late attempts of reset deliveries are dropped", async () => {
      const store = create();
      await store.insert(delivery("1", "a"));
      await store.insert(delivery("2", "b"));
      await store.addAttempt(attempt("1", 1));
      await store.addAttempt(attempt("2", 1, "b"));
      await store.reset("a");
      expect((await store.list()).map((d) => d.id)).toEqual(["2"]);
      expect(await store.list({ orderId: "ord_1" })).toEqual([]);
      expect(await store.attempts("1")).toEqual([]);
      await store.addAttempt(attempt("1", 2));
      expect(await store.attempts("1")).toEqual([]);
      expect(await store.attempts("2")).toHaveLength(1);
      // An id reset away may be used again.
      await store.insert(delivery("1", "a"));
      expect((await store.list()).map((d) => d.id)).toEqual(["2", "1"]);
      await store.reset();
      expect(await store.list()).toEqual([]);
      expect(await store.get("2")).toBeUndefined();
      expect(await allPages(store, { limit: 5 })).toEqual([]);
    });
  });
}
