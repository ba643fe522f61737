import { describe, expect, it } from "vitest";
import { createMemoryStore } from "../../src/store/memory-store.ts";
import { describeStoreContract } from "./store-contract.ts";

describeStoreContract("memory", () => createMemoryStore());

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

  it("refuses a negative or fractional amount as a programming error", async () => {
    const store = createMemoryStore();
    await expect(store.debitWallet("a", null, -1)).rejects.toThrow(RangeError);
    await expect(store.creditWallet("a", null, 1.5)).rejects.toThrow(RangeError);
  });

  it("forgets expired idempotency keys as later keys are claimed", async () => {
    const store = createMemoryStore();
    for (let i = 0; i < 100; i++) {
      await store.claimIdempotencyKey({ customerId: "a", key: `k${i}`, fingerprint: "f", expiresAt: i + 10 }, i);
    }
    // At time 200 every earlier key has expired; a new claim sweeps them.
    await store.claimIdempotencyKey({ customerId: "a", key: "fresh", fingerprint: "f", expiresAt: 300 }, 200);
    for (let i = 0; i < 100; i += 25) expect(await store.getIdempotencyRecord("a", `k${i}`, 0)).toBeUndefined();
    expect(await store.getIdempotencyRecord("a", "fresh", 200)).toBeDefined();
  });
});
