/**
 * Simulators sharing one Redis store, each on its own port: requests split
 * across them see one truth (one order per key, never more debits than the
 * balance covers), as two `serve` processes and as two in-process
 * simulators; and Redis going away gives 503 `store_unavailable`, never a
 * hang or a crash, with service back once Redis is.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RunningProcess } from "../../src/harness/child-process.ts";
import { createSimulator, type Simulator } from "../../src/simulator/create-simulator.ts";
import { balanceOf, bearer, send } from "../support/http.ts";
import { startServe } from "../support/processes.ts";
import { redisSkipReason, startRedis, type TestRedis } from "../support/redis.ts";

const skip = redisSkipReason();
const TOKEN = "shared-store-token-01";

const order = (url: string, reference: string, key: string, token = TOKEN) =>
  send(url, "/v1/airtime", {
    method: "POST",
    headers: { ...bearer(token), "idempotency-key": key },
    body: { account: "0712345678", amount: 10, currency: "KES", reference },
  });

describe.skipIf(skip !== undefined)(`a shared Redis store${skip === undefined ? "" : ` (skipped: ${skip})`}`, () => {
  let redis: TestRedis;
  const stops: (() => Promise<unknown>)[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  async function simulator(db: number, balance: number): Promise<Simulator> {
    const sim = await createSimulator({
      clock: "virtual",
      store: `redis://127.0.0.1:${redis.port}/${db}`,
      demo: { token: TOKEN, balance },
      scenarios: false,
      onError: () => undefined,
    });
    await sim.listen(0);
    stops.push(() => sim.close());
    return sim;
  }

  it("two serve processes: 200 parallel requests with one key give one order, one debit, one id", async () => {
    const args = ["--store", `${redis.url.replace(/\/0$/, "/1")}`, "--demo-token", TOKEN, "--quiet"];
    const first = await startServe(args);
    stops.push(() => first.server.stop(1_000));
    const second = await startServe(args);
    stops.push(() => (second.server as RunningProcess).stop(1_000));
    const replies = await Promise.all(
      Array.from({ length: 200 }, (_, i) => order(i % 2 === 0 ? first.url : second.url, "one-key-ref", "one-key")),
    );
    expect(replies.map((reply) => reply.status).filter((status) => status !== 200)).toEqual([]);
    expect(new Set(replies.map((reply) => reply.body.id)).size).toBe(1);
    expect(replies.filter((reply) => reply.headers.get("idempotent-replayed") === "true")).toHaveLength(199);
    // KES 100,000 less one order of KES 10, seen alike from both.
    expect([await balanceOf(first.url, TOKEN), await balanceOf(second.url, TOKEN)]).toEqual([99_990, 99_990]);
  });

  it("two simulators: 500 parallel orders against a balance for 100 give exactly 100 accepted", async () => {
    const one = await simulator(2, 1_000);
    const two = await simulator(2, 1_000);
    const replies = await Promise.all(
      Array.from({ length: 500 }, (_, i) => order(i % 2 === 0 ? one.url : two.url, `race-${i}`, `race-${i}`)),
    );
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(100);
    expect(replies.filter((reply) => reply.status === 402)).toHaveLength(400);
    expect(await balanceOf(one.url, TOKEN)).toBe(0);
  });

  it("answers 503 store_unavailable while Redis is down, and serves again once it is back", async () => {
    const sim = await simulator(3, 1_000);
    expect((await order(sim.url, "before", "before")).status).toBe(200);
    await redis.stop();
    try {
      const down = await order(sim.url, "while-down", "while-down");
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({ code: "store_unavailable" });
      const lookup = await send(sim.url, "/v1/balance", { headers: bearer(TOKEN) });
      expect(lookup.status).toBe(503);
    } finally {
      await redis.restart();
    }
    // The test server saves nothing, so it comes back empty: seed the customer again, then order.
    await expect
      .poll(async () => (await sim.customers.createCustomer({ id: "again", token: "again-token-000001" })).kind, {
        timeout: 15_000,
      })
      .toBe("created");
    expect((await order(sim.url, "after", "after", "again-token-000001")).status).toBe(200);
  });
});
