/**
 * The Redis store against a real redis-server: the same contract as the
 * memory store, plus what only a shared store can show — two clients (two
 * simulator processes) racing on one customer's balance and keys.
 */
import { describe, expect, it } from "vitest";
import { createRedisStore } from "../../src/store/redis/redis-store.ts";
import { redisSkipReason, useRedis } from "../support/redis.ts";
import { describeStoreContract, order } from "./store-contract.ts";

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

  it("lets one of two clients place an order with a key, and shows the other the record", async () => {
    const prefix = `t${++prefixes}:`;
    const [one, two] = [createRedisStore(client(), { prefix }), createRedisStore(client(), { prefix })];
    await one.putCustomer({
      id: "c",
      name: "C",
      tokens: ["c-token"],
      apiKey: "k",
      wallets: [{ shortcode: null, balanceCents: 100_000, currency: "KES" }],
    });
    const record = (orderId: string) => ({ customerId: "c", key: "k", fingerprint: "fp", expiresAt: 10_000, orderId });
    const placed = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 === 0 ? one : two).placeOrder({ order: order(`o${i}`, "c", `r${i}`), key: record(`o${i}`), now: 0 }),
      ),
    );
    const winners = placed.flatMap((result, i) => (result.kind === "placed" ? [`o${i}`] : []));
    expect(winners).toHaveLength(1);
    expect(await two.getIdempotencyRecord("c", "k", 0)).toEqual(record(winners[0] as string));
  });
});
