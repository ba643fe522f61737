/**
 * The Redis store against a real redis-server: the same contract as the
 * memory store, plus what only a shared store can show — two clients (two
 * simulator processes) racing on one customer's balance and keys.
 */
import { describe, expect, it } from "vitest";
import { createRedisStore } from "../../src/store/redis/redis-store.ts";
import { redisSkipReason, useRedis } from "../support/redis.ts";
import { describeStoreContract, NOW, order } from "./store-contract.ts";

const skip = redisSkipReason();

describe.skipIf(skip !== undefined)(`the Redis store${skip === undefined ? "" : ` (skipped: ${skip})`}`, () => {
  const { client } = useRedis();
  let prefixes = 0;

  // A fresh prefix per test: each starts with an empty store on the shared server.
  describeStoreContract("redis", () => createRedisStore(client(), { prefix: `t${++prefixes}:` }));

  it("keeps one truth for two clients: 200 debits of 1 against 100 split across both succeed 100 times", async () => {
    const prefix = `t${++prefixes}:`;
    const [one, two] = [createRedisStore(client(), { prefix }), createRedisStore(client(), { prefix })];
    await one.putCustomer({
      id: "shared",
      name: "Shared",
      tokens: ["shared-token"],
      apiKey: "k",
      wallets: [{ shortcode: null, balanceCents: 100, currency: "KES" }],
    });
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? one : two).debitWallet("shared", null, 1)),
    );
    expect(results.filter((r) => r.kind === "debited")).toHaveLength(100);
    expect((await two.getCustomer("shared"))?.wallets[0]?.balanceCents).toBe(0);
    expect((await two.findCustomerByToken("shared-token"))?.id).toBe("shared");
  });

  it("places an order in one step: the key, the reference, the balance, the debit, the order", async () => {
    const store = createRedisStore(client(), { prefix: `t${++prefixes}:` });
    await store.putCustomer({
      id: "p",
      name: "P",
      tokens: ["p-token"],
      apiKey: "k",
      wallets: [{ shortcode: null, balanceCents: 1_500, currency: "KES" }],
    });
    const key = { customerId: "p", key: "k1", fingerprint: "fp", expiresAt: NOW + 100, orderId: "o1" };
    expect(await store.placeOrder?.({ order: order("o1", "p", "r1"), key, now: NOW })).toEqual({ kind: "placed" });
    expect(await store.getIdempotencyRecord("p", "k1", NOW)).toEqual(key);
    expect(
      await store.placeOrder?.({ order: order("o2", "p", "r2"), key: { ...key, orderId: "o2" }, now: NOW }),
    ).toEqual({
      kind: "existing",
      record: key,
    });
    expect(await store.placeOrder?.({ order: order("o3", "p", "r1"), now: NOW })).toEqual({
      kind: "duplicate_reference",
    });
    expect(await store.placeOrder?.({ order: order("o4", "p", "r4"), now: NOW })).toEqual({
      kind: "insufficient",
      wallet: { shortcode: null, balanceCents: 500, currency: "KES" },
    });
    // Nothing of the refused ones was kept: one order, one debit.
    expect((await store.listOrders()).map((o) => o.id)).toEqual(["o1"]);
    expect((await store.getCustomer("p"))?.wallets[0]?.balanceCents).toBe(500);
    // An expired key is claimed afresh.
    expect(await store.placeOrder?.({ order: order("o5", "p", "r5"), key, now: NOW + 100 })).toEqual({
      kind: "insufficient",
      wallet: { shortcode: null, balanceCents: 500, currency: "KES" },
    });
  });

  it("lets one of two clients claim a key, and shows the other the record", async () => {
    const prefix = `t${++prefixes}:`;
    const [one, two] = [createRedisStore(client(), { prefix }), createRedisStore(client(), { prefix })];
    const record = { customerId: "c", key: "k", fingerprint: "fp", expiresAt: 10_000 };
    const claims = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? one : two).claimIdempotencyKey(record, 0)),
    );
    expect(claims.filter((claim) => claim.kind === "claimed")).toHaveLength(1);
    await one.completeIdempotencyKey("c", "k", "ord_1");
    expect(await two.getIdempotencyRecord("c", "k", 0)).toEqual({ ...record, orderId: "ord_1" });
  });
});
