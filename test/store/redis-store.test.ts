/**
 * The Redis store against a real redis-server: the same contract as the
 * memory store, plus what only a shared store can show — two clients (two
 * simulator processes) racing on one customer's balance and keys, a token
 * one process remembers being moved or revoked by another, and a refused
 * order leaving nothing in the indexes across customers.
 */
import { describe, expect, it } from "vitest";
import type { Customer } from "../../src/domain/model.ts";
import { DEFAULT_JOB_SHARDS, shardOf } from "../../src/redis/job-shards.ts";
import { createRedisStore } from "../../src/redis/redis-store.ts";
import { redisSkipReason, useRedis } from "../support/redis.ts";
import { describeStoreContract, liveKey, order } from "./store-contract.ts";

const skip = redisSkipReason();

/** A customer with one default wallet holding `balanceCents`. */
const customer = (id: string, tokens: string[], balanceCents = 0): Customer => ({
  id,
  name: id,
  tokens,
  apiKey: "k",
  wallets: [{ shortcode: null, balanceCents, currency: "KES" }],
});

describe.skipIf(skip !== undefined)(`the Redis store${skip === undefined ? "" : ` (skipped: ${skip})`}`, () => {
  const { client } = useRedis();
  let prefixes = 0;

  // A fresh prefix per test: each starts with an empty store on the shared server.
  describeStoreContract("redis", () => createRedisStore(client(), { prefix: `t${++prefixes}:` }));

  it("keeps one truth for two clients: 200 orders of 1 against 100 split across both place 100", async () => {
    const prefix = `t${++prefixes}:`;
    const [one, two] = [createRedisStore(client(), { prefix }), createRedisStore(client(), { prefix })];
    await one.putCustomer(customer("shared", ["shared-token"], 100));
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        (i % 2 === 0 ? one : two).placeOrder({
          order: { ...order(`o${i}`, "shared", `r${i}`), amountCents: 1 },
          now: 0,
        }),
      ),
    );
    expect(results.filter((r) => r.kind === "placed")).toHaveLength(100);
    expect((await two.getCustomer("shared"))?.wallets[0]?.balanceCents).toBe(0);
    expect((await two.findCustomerByToken("shared-token"))?.id).toBe("shared");
  });

  it("lets one of two clients place an order with a key, and shows the other the record", async () => {
    const prefix = `t${++prefixes}:`;
    const [one, two] = [createRedisStore(client(), { prefix }), createRedisStore(client(), { prefix })];
    await one.putCustomer(customer("c", ["c-token"], 100_000));
    const record = (orderId: string) => ({ customerId: "c", key: "k", fingerprint: "fp", expiresAt: 10_000, orderId });
    const placed = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 === 0 ? one : two).placeOrder({ order: order(`o${i}`, "c", `r${i}`), key: record(`o${i}`), now: 0 }),
      ),
    );
    const winners = placed.flatMap((result, i) => (result.kind === "placed" ? [`o${i}`] : []));
    expect(winners).toHaveLength(1);
    expect(await liveKey(two, "c", "k", 0)).toEqual(record(winners[0] as string));
  });

  it("sweeps expired keys as orders are placed, and never answers one, swept or not", async () => {
    const prefix = `t${++prefixes}:`;
    const store = createRedisStore(client(), { prefix });
    await store.putCustomer(customer("c", ["c-token"], 100_000));
    const record = (key: string, orderId: string, expiresAt: number) => ({
      customerId: "c",
      key,
      fingerprint: "fp",
      expiresAt,
      orderId,
    });
    const place = (i: number, key: string, now: number, expiresAt: number) =>
      store.placeOrder({ order: order(`o${i}`, "c", `r${i}`), key: record(key, `o${i}`, expiresAt), now });
    for (let i = 1; i <= 48; i++) expect((await place(i, `old${i}`, 0, 100)).kind).toBe("placed");
    const [book, expiry] = [`${prefix}{c}:book`, `${prefix}{c}:idempotency-expiry`];
    expect(await client().zcard(expiry)).toBe(48);
    // Expired, not yet swept: a placement with the key is a new order.
    expect((await place(49, "old1", 200, 10_000)).kind).toBe("placed");
    for (let i = 50; i <= 80; i++) expect((await place(i, `new${i}`, 200, 10_000)).kind).toBe("placed");
    // Sweeps at the 64th and the 80th order took the 47 expired keys left; the 32 live ones stay.
    expect(await client().zcard(expiry)).toBe(32);
    expect((await client().hkeys(book)).filter((field) => field.startsWith("k:"))).toHaveLength(32);
    expect((await place(81, "new50", 300, 10_000)).kind).toBe("existing");
  });

  it("follows a static token another client moved or revoked, whatever the first remembers of it", async () => {
    const prefix = `t${++prefixes}:`;
    const [one, two] = [createRedisStore(client(), { prefix }), createRedisStore(client(), { prefix })];
    await one.putCustomer(customer("a", ["moving-token", "kept-token"]));
    await one.putCustomer(customer("b", ["b-token"]));
    expect((await one.findCustomerByToken("moving-token"))?.id).toBe("a");
    await two.patchCustomer("a", { tokens: ["kept-token"] });
    await two.patchCustomer("b", { tokens: ["b-token", "moving-token"] });
    expect((await one.findCustomerByToken("moving-token"))?.id).toBe("b");
    expect((await one.findCustomerByToken("kept-token"))?.id).toBe("a");
    await two.patchCustomer("b", { tokens: ["b-token"] });
    expect(await one.findCustomerByToken("moving-token")).toBeUndefined();
    await two.patchCustomer("a", { tokens: [] });
    expect(await one.findCustomerByToken("kept-token")).toBeUndefined();
  });

  it("refuses an issued token once expired, or once its customer is gone, though it was accepted before", async () => {
    const prefix = `t${++prefixes}:`;
    const [one, two] = [createRedisStore(client(), { prefix }), createRedisStore(client(), { prefix })];
    await one.putCustomer(customer("c", []));
    await two.putIssuedToken({ token: "issued-1", customerId: "c", issuedAt: 0, expiresAt: 1_000 });
    expect((await one.findCustomerByIssuedToken("issued-1", 999))?.id).toBe("c");
    expect((await one.findCustomerByIssuedToken("issued-1", 999))?.id).toBe("c");
    expect(await one.findCustomerByIssuedToken("issued-1", 1_000)).toBeUndefined();
    await two.putIssuedToken({ token: "issued-2", customerId: "c", issuedAt: 0, expiresAt: 1_000 });
    expect((await one.findCustomerByIssuedToken("issued-2", 0))?.id).toBe("c");
    await two.reset();
    expect(await one.findCustomerByIssuedToken("issued-2", 0)).toBeUndefined();
  });

  it("lists two clients' orders across customers and index shards by creation time, each client's in its order", async () => {
    const prefix = `t${++prefixes}:`;
    const [one, two] = [createRedisStore(client(), { prefix }), createRedisStore(client(), { prefix })];
    const owners = ["a", "b", "c"];
    for (const id of owners) await one.putCustomer(customer(id, [], 1_000_000));
    // 30 orders a millisecond, 3 milliseconds, split across both clients, so many share one millisecond.
    const expected: string[] = [];
    for (let i = 0; i < 90; i++) {
      const placed = { ...order(`o${i}`, owners[i % 3] as string, `r${i}`), createdAt: Math.floor(i / 30) };
      expect((await (i % 2 === 0 ? one : two).placeOrder({ order: placed, now: 0 })).kind).toBe("placed");
      expected.push(placed.id);
    }
    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const page = await two.listOrderPage({ limit: 7, ...(cursor === null ? {} : { cursor }) });
      pages.push(page.orders.map((placed) => placed.id));
      cursor = page.nextCursor;
    } while (cursor !== null);
    const listed = pages.flat();
    expect([...listed].sort()).toEqual([...expected].sort());
    const byClient = (client: number) => (ids: string[]) => ids.filter((id) => Number(id.slice(1)) % 2 === client);
    for (const side of [0, 1]) expect(byClient(side)(listed)).toEqual(byClient(side)(expected));
    const createdAt = (id: string) => Math.floor(Number(id.slice(1)) / 30);
    expect(listed.map(createdAt)).toEqual([...listed.map(createdAt)].sort((a, b) => a - b));
    expect((await one.listOrders()).map((placed) => placed.id)).toEqual(listed);
    expect(await one.countOrders()).toBe(90);
  });

  it("leaves a refused order out of the indexes across customers, and keeps a placed one in them", async () => {
    const prefix = `t${++prefixes}:`;
    const store = createRedisStore(client(), { prefix });
    await store.putCustomer(customer("c", [], 1_000));
    expect((await store.placeOrder({ order: order("o1", "c", "r1"), now: 0 })).kind).toBe("placed");
    expect((await store.placeOrder({ order: order("o2", "c", "r1"), now: 0 })).kind).toBe("duplicate_reference");
    expect((await store.placeOrder({ order: order("o3", "c", "r1"), now: 0 })).kind).toBe("duplicate_reference");
    // The same id again: its index entries stay those of the stored order.
    expect((await store.placeOrder({ order: order("o1", "c", "r1"), now: 0 })).kind).toBe("duplicate_reference");
    const shard = `${prefix}{idx:${shardOf("o1", DEFAULT_JOB_SHARDS)}}`;
    expect(await client().keys(`${prefix}{idx:*`)).toEqual(expect.arrayContaining([`${shard}:owners`]));
    expect(await client().keys(`${prefix}{idx:*`)).toHaveLength(2);
    expect(await client().hgetall(`${shard}:owners`)).toEqual({ o1: "c" });
    expect(await client().zrange(`${shard}:orders`, 0, -1)).toEqual(["o1"]);
    expect(await store.countOrders()).toBe(1);
    expect((await store.getOrder("o1"))?.reference).toBe("r1");
  });

  it("finds an order by id with its customer named, or named wrongly, or not named", async () => {
    const prefix = `t${++prefixes}:`;
    const store = createRedisStore(client(), { prefix });
    await store.putCustomer(customer("c", [], 1_000));
    await store.putCustomer(customer("d", [], 1_000));
    await store.placeOrder({ order: order("o1", "c", "r1"), now: 0 });
    expect((await store.getOrder("o1", "c"))?.customerId).toBe("c");
    expect((await store.getOrder("o1", "d"))?.customerId).toBe("c");
    expect((await store.getOrder("o1"))?.customerId).toBe("c");
    expect(await store.getOrder("o2", "c")).toBeUndefined();
  });
});
