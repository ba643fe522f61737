/**
 * The fault proxy of the tests (`test/support/fault-proxy.ts`), between a
 * plain ioredis client and a real redis-server: each fault is seen by the
 * client as it would see it on a bad network, and healing brings it back,
 * driven step by step.
 */
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { type FaultProxy, startFaultProxy } from "../support/fault-proxy.ts";
import { redisSkipReason, useRedis } from "../support/redis.ts";

const skip = redisSkipReason();

describe.skipIf(skip !== undefined)(`the fault proxy${skip === undefined ? "" : ` (skipped: ${skip})`}`, () => {
  const redis = useRedis();
  const opened: { proxy: FaultProxy; client: Redis }[] = [];
  afterEach(async () => {
    for (const { proxy, client } of opened.splice(0)) {
      client.disconnect();
      await proxy.close();
    }
  });

  /** A client through a fresh proxy, connected, with no retry of its own so each fault shows. */
  async function throughProxy(options: { commandTimeout?: number } = {}) {
    const proxy = await startFaultProxy(redis.server().port);
    const client = new Redis({
      port: proxy.port,
      host: "127.0.0.1",
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      lazyConnect: true,
      retryStrategy: () => 50,
      ...options,
    });
    opened.push({ proxy, client });
    await client.connect();
    return { proxy, client };
  }

  async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
    const started = performance.now();
    const value = await work();
    return { value, ms: performance.now() - started };
  }

  it("forwards commands and their answers unchanged when healthy", async () => {
    const { client } = await throughProxy();
    await client.set("proxy:plain", "value");
    expect(await client.get("proxy:plain")).toBe("value");
    const big = "x".repeat(1_000_000);
    await client.set("proxy:big", big);
    expect(await client.get("proxy:big")).toBe(big);
  });

  it("adds latency with jitter to each round trip", async () => {
    const { proxy, client } = await throughProxy();
    proxy.latency(200, 100);
    const slow = await Promise.all(Array.from({ length: 10 }, () => timed(() => client.ping())));
    // Each way waits 100 to 300 ms, so a round trip takes at least 200 ms.
    for (const { value, ms } of slow) {
      expect(value).toBe("PONG");
      expect(ms).toBeGreaterThanOrEqual(190);
    }
    const spread = slow.map(({ ms }) => ms);
    expect(Math.max(...spread) - Math.min(...spread)).toBeGreaterThan(0);
    proxy.heal();
    expect(await client.ping()).toBe("PONG");
  });

  it("cuts the bandwidth, so a large value takes as long as its size says", async () => {
    const { proxy, client } = await throughProxy();
    const value = "y".repeat(200_000);
    await client.set("proxy:slow", value);
    proxy.bandwidth(400_000);
    // 200 kB back at 400 kB/s: at least half a second.
    const { value: read, ms } = await timed(() => client.get("proxy:slow"));
    expect(read).toBe(value);
    expect(ms).toBeGreaterThanOrEqual(450);
  });

  it("resets every open connection: the client sees ECONNRESET, then reconnects", async () => {
    const { proxy, client } = await throughProxy();
    const errors: string[] = [];
    client.on("error", (error: NodeJS.ErrnoException) => errors.push(error.code ?? error.message));
    await client.ping();
    const blocked = client.blpop("proxy:never", 0).then(
      () => "answered",
      (error: Error) => error.message,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(proxy.resetAll()).toBe(1);
    expect(await blocked).not.toBe("answered");
    expect(errors).toContain("ECONNRESET");
    await expect.poll(() => client.status).toBe("ready");
    expect(await client.ping()).toBe("PONG");
  });

  it("blackholes: connected, no answer, nothing closed, and what it held flows on heal", async () => {
    const { proxy, client } = await throughProxy({ commandTimeout: 300 });
    await client.set("proxy:held", "before");
    proxy.blackhole();
    await expect(client.get("proxy:held")).rejects.toThrow(/timed out/);
    expect(client.status).toBe("ready");
    // A new connection is accepted too, and hears nothing.
    const late = new Redis({ port: proxy.port, host: "127.0.0.1", lazyConnect: true, retryStrategy: () => null });
    late.on("error", () => undefined);
    const lateConnect = Promise.race([
      late.connect().then(() => "ready"),
      new Promise((resolve) => setTimeout(() => resolve(`no answer, ${late.status}`), 500)),
    ]);
    expect(await lateConnect).toBe("no answer, connect");
    late.disconnect();
    expect(proxy.connections).toBeGreaterThanOrEqual(1);
    // The write sent into the blackhole is held, not dropped: after the heal the server has it.
    const write = client.set("proxy:held", "during").catch((error: Error) => error.message);
    expect(await write).toMatch(/timed out/);
    proxy.heal();
    const reader = new Redis(redis.server().port, "127.0.0.1");
    try {
      await expect.poll(() => reader.get("proxy:held")).toBe("during");
    } finally {
      reader.disconnect();
    }
  });
});
