/**
 * `--redis-durability` against real servers: `aof` refuses a Redis without
 * an append-only file, warns about an fsync policy weaker than `always`,
 * and with `appendfsync always` a `kill -9` of Redis in the middle of
 * placing orders loses none of those it acknowledged. Without an AOF
 * (`memory`) the same kill loses them, and the test prints how many.
 */
import { afterEach, describe, expect, it } from "vitest";
import { connectRedisStore } from "../../src/redis/connect-redis.ts";
import { checkDurability } from "../../src/redis/durability.ts";
import { order } from "../store/store-contract.ts";
import { redisSkipReason, startRedis, type TestRedis } from "../support/redis.ts";

const skip = redisSkipReason();

/** Places orders 8 at a time until Redis is killed after `killAfter` were acknowledged; the acknowledged ids. */
async function placeUntilKilled(server: TestRedis, killAfter: number): Promise<string[]> {
  const connection = await connectRedisStore(server.url);
  await connection.store.putCustomer({
    id: "c",
    name: "c",
    tokens: ["t"],
    apiKey: "k",
    wallets: [{ shortcode: null, balanceCents: 1_000_000, currency: "KES" }],
  });
  const acknowledged: string[] = [];
  let next = 0;
  let killing: Promise<void> | undefined;
  const worker = async () => {
    for (;;) {
      const id = `o${next++}`;
      const result = await connection.store.placeOrder({ order: order(id, "c", id), now: 0 }).catch(() => undefined);
      if (result === undefined) return;
      if (result.kind === "placed") acknowledged.push(id);
      if (acknowledged.length >= killAfter) killing ??= server.kill();
    }
  };
  await Promise.all(Array.from({ length: 8 }, () => worker()));
  await killing;
  connection.client.disconnect();
  return acknowledged;
}

async function survivors(server: TestRedis, ids: readonly string[]): Promise<number> {
  const connection = await connectRedisStore(server.url);
  try {
    const found = await Promise.all(ids.map((id) => connection.store.getOrder(id, "c")));
    return found.filter((stored) => stored !== undefined).length;
  } finally {
    await connection.close();
  }
}

describe.skipIf(skip !== undefined)(`Redis durability levels${skip === undefined ? "" : ` (skipped: ${skip})`}`, () => {
  const servers: TestRedis[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.stop();
  });
  const start = async (appendfsync?: "always" | "everysec") => {
    const server = await startRedis(appendfsync === undefined ? {} : { appendfsync });
    servers.push(server);
    return server;
  };

  it("aof refuses a Redis without appendonly, naming the server", async () => {
    const server = await start();
    const connection = await connectRedisStore(server.url);
    try {
      await expect(checkDurability(connection.client, "aof")).rejects.toThrow(
        `appendonly yes on Redis 127.0.0.1:${server.port}`,
      );
      expect((await checkDurability(connection.client, "memory")).warnings).toEqual([]);
    } finally {
      await connection.close();
    }
  });

  it("aof warns about appendfsync everysec and states its loss window", async () => {
    const server = await start("everysec");
    const connection = await connectRedisStore(server.url);
    try {
      const check = await checkDurability(connection.client, "aof");
      expect(check.warnings).toEqual([expect.stringContaining("appendfsync everysec, not always")]);
      expect(check.lossWindow).toMatch(/about 1 s/);
    } finally {
      await connection.close();
    }
  });

  it("with appendfsync always, kill -9 of Redis loses no acknowledged order", async () => {
    const server = await start("always");
    const connection = await connectRedisStore(server.url);
    expect(await checkDurability(connection.client, "aof")).toMatchObject({ warnings: [] });
    await connection.close();
    const acknowledged = await placeUntilKilled(server, 200);
    await server.restart();
    expect(await survivors(server, acknowledged)).toBe(acknowledged.length);
  });

  it("without an AOF (memory), kill -9 of Redis loses what it acknowledged, and says how many", async () => {
    const server = await start();
    const acknowledged = await placeUntilKilled(server, 200);
    await server.restart();
    const lost = acknowledged.length - (await survivors(server, acknowledged));
    console.info(`memory durability: kill -9 of Redis lost ${lost} of ${acknowledged.length} acknowledged orders`);
    // Nothing saved, nothing appended: a restarted server has none of them.
    expect(lost).toBe(acknowledged.length);
  });
});
