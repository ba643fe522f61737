import { expect, it } from "vitest";
import { createMemoryDeliveryStore } from "../../src/webhooks/memory-delivery-store.ts";
import { delivery, describeDeliveryStoreContract } from "./delivery-store-contract.ts";

describeDeliveryStoreContract("memory", () => createMemoryDeliveryStore());

it("hands out frozen records, so a careless caller fails loudly instead of changing stored state", async () => {
  const store = createMemoryDeliveryStore();
  await store.insert(delivery("1", "a"));
  const read = (await store.get("1")) as { state: string };
  expect(() => {
    read.state = "delivered";
  }).toThrow(TypeError);
});

it("saves every delivery with its attempts, and loads them into another store", async () => {
  const store = createMemoryDeliveryStore();
  await store.insert(delivery("1", "a"));
  await store.insert(delivery("2", "b", { state: "failed" }));
  const copy = createMemoryDeliveryStore();
  await copy.importState(store.exportState());
  expect(await copy.list()).toEqual(await store.list());
});
