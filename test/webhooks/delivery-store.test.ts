import { expect, it } from "vitest";
import { createMemoryDeliveryStore } from "../../src/webhooks/memory-delivery-store.ts";
import type { Delivery, DeliveryAttempt } from "../../src/webhooks/ports.ts";

function delivery(id: string, customerId: string, overrides: Partial<Delivery> = {}): Delivery {
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

const attempt = (deliveryId: string, number: number): DeliveryAttempt => ({
  deliveryId,
  messageId: `msg_${deliveryId}`,
  customerId: "a",
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

it("filters by customer, order, reference, state and message id, in creation order", async () => {
  const store = createMemoryDeliveryStore();
  await store.insert(delivery("1", "a"));
  await store.insert(delivery("2", "b", { state: "failed" }));
  await store.insert(delivery("3", "a", { state: "failed" }));
  expect((await store.list({ customerId: "a" })).map((d) => d.id)).toEqual(["1", "3"]);
  expect((await store.list({ state: "failed" })).map((d) => d.id)).toEqual(["2", "3"]);
  expect((await store.list({ customerId: "a", state: "failed" })).map((d) => d.id)).toEqual(["3"]);
  expect((await store.list({ orderId: "ord_2" })).map((d) => d.id)).toEqual(["2"]);
  expect((await store.list({ reference: "REF-1" })).map((d) => d.id)).toEqual(["1"]);
  expect((await store.list({ messageId: "msg_3" })).map((d) => d.id)).toEqual(["3"]);
  await expect(store.insert(delivery("1", "a"))).rejects.toThrow(/already exists/);
});

it("keeps records apart from what callers hold, and updates atomically", async () => {
  const store = createMemoryDeliveryStore();
  const original = delivery("1", "a") as { state: string };
  await store.insert(original as ReturnType<typeof delivery>);
  original.state = "failed";
  const read = (await store.get("1")) as { state: string };
  expect(() => {
    read.state = "delivered";
  }).toThrow(TypeError);
  expect((await store.get("1"))?.state).toBe("pending");
  const updates = await Promise.all(
    Array.from({ length: 50 }, () => store.update("1", (d) => ({ ...d, attemptCount: d.attemptCount + 1 }))),
  );
  expect(updates.map((d) => d?.attemptCount).sort((x = 0, y = 0) => x - y)).toEqual(
    Array.from({ length: 50 }, (_, i) => i + 1),
  );
  expect(await store.update("missing", (d) => d)).toBeUndefined();
});

it("reset forgets one customer's deliveries and attempts, or all; late attempts of reset deliveries are dropped", async () => {
  const store = createMemoryDeliveryStore();
  await store.insert(delivery("1", "a"));
  await store.insert(delivery("2", "b"));
  await store.addAttempt(attempt("1", 1));
  await store.addAttempt(attempt("2", 1));
  await store.reset("a");
  expect((await store.list()).map((d) => d.id)).toEqual(["2"]);
  expect(await store.attempts("1")).toEqual([]);
  await store.addAttempt(attempt("1", 2));
  expect(await store.attempts("1")).toEqual([]);
  expect(await store.attempts("2")).toHaveLength(1);
  await store.reset();
  expect(await store.list()).toEqual([]);
});
