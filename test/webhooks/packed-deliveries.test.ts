import { expect, it } from "vitest";
import { createMemoryDeliveryStore, type MemoryDeliveryStore } from "../../src/webhooks/memory-delivery-store.ts";
import type { Delivery, DeliveryAttempt, DeliveryState } from "../../src/webhooks/ports.ts";

const delivery = (n: number, customerId: string): Delivery => ({
  id: `dlv_${n}`,
  messageId: `msg_${n}`,
  kind: "status",
  customerId,
  orderId: `ord_${n % 7}`,
  reference: `REF-${n}`,
  status: 20,
  final: true,
  body: JSON.stringify({ id: `ord_${n % 7}`, status: 20, n }),
  state: "pending",
  createdAt: 1_000 + n,
  nextAttemptAt: 1_000 + n,
  nextJobId: `dlv_${n}/0`,
  scheduleIndex: 0,
  attemptCount: 0,
  deliveredAt: null,
  badSignature: false,
});

const attempt = (finished: Delivery, outcome: DeliveryAttempt["outcome"]): DeliveryAttempt => ({
  deliveryId: finished.id,
  messageId: finished.messageId,
  customerId: finished.customerId,
  orderId: finished.orderId,
  reference: finished.reference,
  number: finished.attemptCount,
  trigger: "schedule",
  scheduledAt: finished.createdAt,
  sentAt: finished.createdAt + 1,
  sentAtWall: 1_800_000_000_000,
  url: "http://127.0.0.1:9/hook",
  requestHeaders: { "webhook-id": finished.messageId, "webhook-signature": `v1,sig${finished.id}` },
  requestBody: finished.body,
  responseStatus: outcome === "delivered" ? 200 : 503,
  error: null,
  latencyMs: 3,
  outcome,
});

/** Everything a reader can see of a store. */
async function everything(store: MemoryDeliveryStore) {
  const all = await store.list();
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listPage({ limit: 4, ...(cursor === undefined ? {} : { cursor }) });
    pages.push(page.deliveries.map((d) => d.id));
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return {
    all,
    attempts: await Promise.all(all.map((d) => store.attempts(d.id))),
    byId: await Promise.all(all.map((d) => store.get(d.id))),
    filtered: await Promise.all([
      store.list({ customerId: "b" }),
      store.list({ orderId: "ord_3" }),
      store.list({ state: "delivered" }),
      store.list({ reference: "REF-4" }),
      store.list({ messageId: "msg_5" }),
      store.list({ messageId: "msg_4" }),
      store.listPage({ limit: 100, state: "failed", customerId: "a" }),
      store.listPage({ limit: 100, referencePrefix: "REF-1", from: 1_010 }),
    ]),
    pages,
    saved: store.exportState(),
  };
}

it("a store that packs every finished delivery at once shows exactly what one keeping objects shows", async () => {
  const packing = createMemoryDeliveryStore({ hotDeliveries: 0, packInBackground: false });
  const plain = createMemoryDeliveryStore();
  const stores = [packing, plain];
  const finish = async (store: MemoryDeliveryStore, id: string, state: DeliveryState) => {
    const updated = await store.update(id, (d) => ({ ...d, state, attemptCount: d.attemptCount + 1, nextJobId: null }));
    if (updated !== undefined) await store.addAttempt(attempt(updated, state === "delivered" ? "delivered" : "failed"));
  };
  for (const store of stores) {
    for (let n = 0; n < 20; n++) await store.insert(delivery(n, n % 3 === 0 ? "b" : "a"));
    for (let n = 0; n < 20; n += 2) await finish(store, `dlv_${n}`, n % 4 === 0 ? "delivered" : "failed");
    // A redelivery of a finished (packed) delivery: pending again, then delivered on its second attempt.
    await finish(store, "dlv_2", "pending");
    await finish(store, "dlv_2", "delivered");
  }
  expect(await everything(packing)).toEqual(await everything(plain));
  expect((await packing.attempts("dlv_2")).map((a) => a.outcome)).toEqual(["failed", "failed", "delivered"]);

  for (const store of stores) {
    await store.removeOrders(["ord_3", "ord_4"]);
    await store.reset("b");
  }
  expect(await everything(packing)).toEqual(await everything(plain));
  expect((await packing.list()).map((d) => d.orderId)).not.toContain("ord_3");
  const fresh = createMemoryDeliveryStore({ hotDeliveries: 0, packInBackground: false });
  await fresh.importState(packing.exportState());
  expect(await everything(fresh)).toEqual(await everything(plain));
});
