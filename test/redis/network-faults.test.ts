/**
 * Faults of the network between the simulators and Redis, under steady
 * load: two simulators (real clock) reach one redis-server through the
 * tests' fault proxy while workers place orders, replay keys and look orders
 * up, and every final status is sent to a real webhook receiver. Each
 * scenario checks what the simulator promises whatever the network does:
 *
 * - no 500: every answer is a 2xx, a 4xx the load may meet, or a 503
 *   `store_unavailable`, and none takes longer than the request timeout;
 * - every order answered 200 exists afterwards, with its id, and a replay
 *   of its key never gives another id;
 * - no order is finalised twice; every final status gets a webhook message
 *   (at least once, one id per status);
 * - money is conserved: the balance plus the orders not refunded is the start.
 *
 * It prints what it measured: requests, 503s, the time from healing to the
 * first order placed again, messages sent, orders checked, and the p99 of
 * the answers before and after the fault (printed, not asserted).
 *
 * Windows are the issue's lengths times FAULT_SCALE (default 1; the stress
 * script may raise it, CI may lower it to save time).
 */
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_STATUS_TABLE, isFinalStatus, refundsWallet } from "../../src/contract/status-codes.ts";
import { createSimulator, type Simulator } from "../../src/simulator/create-simulator.ts";
import { type CountingReceiver, startCountingReceiver } from "../support/counting-receiver.ts";
import { type FaultProxy, startFaultProxy } from "../support/fault-proxy.ts";
import { balanceOf, bearer, send } from "../support/http.ts";
import { redisSkipReason, useRedis } from "../support/redis.ts";
import { type Answer, LOAD_TOKEN, p99, startSteadyLoad } from "../support/steady-load.ts";

const skip = redisSkipReason();
const ADMIN = "network-faults-admin-001";
const BALANCE = 1_000_000;
const SCALE = Number(process.env.FAULT_SCALE ?? "1");
const REQUEST_TIMEOUT_MS = 10_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Fault {
  readonly name: string;
  /** Runs the fault on the proxy for its window, and heals it. */
  run(proxy: FaultProxy): Promise<void>;
}

const FAULTS: readonly Fault[] = [
  {
    name: "200 ± 100 ms of latency for 10 s",
    async run(proxy) {
      proxy.latency(200, 100);
      await sleep(10_000 * SCALE);
      proxy.heal();
    },
  },
  {
    name: "every connection reset every 2 s for 10 s",
    async run(proxy) {
      for (let elapsed = 0; elapsed < 10_000 * SCALE; elapsed += 2_000) {
        proxy.resetAll();
        await sleep(2_000);
      }
      proxy.heal();
    },
  },
  {
    name: "a 5 s blackhole, then healing",
    async run(proxy) {
      proxy.blackhole();
      await sleep(5_000 * SCALE);
      proxy.heal();
    },
  },
];

describe.skipIf(skip !== undefined)(
  `network faults under load${skip === undefined ? "" : ` (skipped: ${skip})`}`,
  () => {
    const redis = useRedis();
    let database = 0;
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    async function twoSimulators(durability: "memory" | "replicated") {
      const proxy = await startFaultProxy(redis.server().port);
      cleanups.push(() => proxy.close());
      const receiver = await startCountingReceiver();
      cleanups.push(() => receiver.close());
      const store = `redis://127.0.0.1:${proxy.port}/${++database}`;
      const sims: Simulator[] = [];
      for (let i = 0; i < 2; i++) {
        const sim = await createSimulator({
          store,
          clock: "real",
          timing: "300ms",
          adminToken: ADMIN,
          demo: { token: LOAD_TOKEN, balance: BALANCE, webhook: { url: receiver.url } },
          webhooks: { schedule: ["0", ...Array.from({ length: 40 }, () => "500ms")].join(","), timeout: "2s" },
          scenarios: false,
          redisDurability: durability,
          onError: () => undefined,
        });
        cleanups.push(() => sim.close());
        await sim.listen(0);
        sims.push(sim);
      }
      return { proxy, receiver, sims };
    }

    it("answers 503 store_unavailable while Redis hears nothing, instead of hanging", { timeout: 60_000 }, async () => {
      const { proxy, sims } = await twoSimulators("memory");
      const [sim] = sims as [Simulator];
      proxy.blackhole();
      // The blackhole is never healed before the answers: each must come from the simulator giving up.
      const replies = await Promise.all([
        send(sim.url, "/v1/airtime", {
          method: "POST",
          headers: { ...bearer(LOAD_TOKEN), "idempotency-key": "held-1" },
          body: { account: "0712345678", amount: 10, currency: "KES", reference: "held-1" },
        }),
        send(sim.url, "/v1/airtime/held-1", { headers: bearer(LOAD_TOKEN) }),
        send(sim.url, "/v1/balance", { headers: bearer(LOAD_TOKEN) }),
      ]);
      expect(proxy.connections).toBeGreaterThan(0);
      for (const reply of replies) {
        expect(reply.status).toBe(503);
        expect(reply.body.code).toBe("store_unavailable");
      }
      proxy.heal();
    });

    for (const fault of FAULTS) {
      it(`keeps every promise through ${fault.name}`, { timeout: 180_000 }, async () => {
        const { proxy, receiver, sims } = await twoSimulators("memory");
        const urls = sims.map((sim) => sim.url);
        const load = startSteadyLoad(urls, { workers: 6, prefix: `f${database}`, timeoutMs: REQUEST_TIMEOUT_MS });
        await sleep(2_000);
        const faultAt = Date.now();
        await fault.run(proxy);
        const healedAt = Date.now();
        await expect
          .poll(() => load.answers.some((a) => a.kind === "place" && a.status === 200 && a.startedAt >= healedAt), {
            timeout: 30_000,
            interval: 100,
          })
          .toBe(true);
        const recoveredAt = Math.min(
          ...load.answers
            .filter((a) => a.kind === "place" && a.status === 200 && a.startedAt >= healedAt)
            .map((a) => a.startedAt + a.ms),
        );
        await sleep(2_000);
        await load.stop();

        const checked = await checkPromises(urls[0] as string, load, receiver);
        const before = load.answers.filter((a) => a.startedAt + a.ms < faultAt);
        const after = load.answers.filter((a) => a.startedAt >= recoveredAt);
        console.log(
          `${fault.name}: ${load.answers.length} requests, ${count(load.answers, 503)} answered 503, ` +
            `service back ${recoveredAt - healedAt} ms after healing, ${receiver.messages.size} messages sent, ` +
            `${checked} orders checked; p99 ${p99(before)} ms before, ${p99(after)} ms after`,
        );
      });
    }
  },
);

const count = (answers: readonly Answer[], status: number) => answers.filter((a) => a.status === status).length;

/** Every promise of the file's header, checked once the load stopped; resolves to the orders checked. */
async function checkPromises(
  url: string,
  load: ReturnType<typeof startSteadyLoad>,
  receiver: CountingReceiver,
): Promise<number> {
  const unexpected = load.answers.filter(
    (a) => a.status === 0 || (a.status >= 500 && !(a.status === 503 && a.code === "store_unavailable")),
  );
  expect(unexpected).toEqual([]);
  expect(load.replayedToNewId).toEqual([]);
  // Every order stored, acknowledged or not (a 503 may follow a placement that was applied), is final.
  const orders = await waitAllFinal(url);
  const byReference = new Map(orders.map((order) => [order.reference, order]));
  for (const [reference, id] of load.acknowledged) expect(byReference.get(reference)?.id, reference).toBe(id);
  let kept = 0;
  for (const order of orders) {
    const finals = order.history.filter((entry) => isFinalStatus(DEFAULT_STATUS_TABLE, entry.status));
    expect(finals, `${order.reference} finalised once`).toHaveLength(1);
    if (!refundsWallet(DEFAULT_STATUS_TABLE, order.status)) kept += order.amount;
  }
  expect(await balanceOf(url, LOAD_TOKEN)).toBe(BALANCE - kept);
  try {
    await expect.poll(() => missingMessages(orders, receiver), { timeout: 60_000, interval: 500 }).toEqual([]);
  } catch (error) {
    // What the simulator holds of each message missing, for the failure's report.
    for (const missing of missingMessages(orders, receiver)) {
      const reference = missing.split(" ")[0] as string;
      const held = await send(url, `/_sim/deliveries?reference=${reference}`, { headers: bearer(ADMIN) });
      console.error(`missing ${missing}: ${JSON.stringify(held.body)}`);
    }
    throw error;
  }
  for (const order of orders) {
    const ids = [...receiver.messages.values()].filter(
      (m) => m.body.reference === order.reference && m.body.status === order.status,
    );
    expect(ids, `${order.reference}: one message id for its final status`).toHaveLength(1);
  }
  return orders.length;
}

interface StoredOrder {
  readonly id: string;
  readonly reference: string;
  readonly status: number;
  readonly amount: number;
  readonly history: readonly { readonly status: number }[];
}

async function allOrders(url: string): Promise<StoredOrder[]> {
  const orders: StoredOrder[] = [];
  for (let cursor: string | null = ""; cursor !== null;) {
    const page = await send(url, `/_sim/orders?limit=1000&customer=demo${cursor === "" ? "" : `&cursor=${cursor}`}`, {
      headers: bearer(ADMIN),
    });
    expect(page.status).toBe(200);
    orders.push(...(page.body.orders as StoredOrder[]));
    cursor = page.body.next_cursor as string | null;
  }
  return orders;
}

async function waitAllFinal(url: string): Promise<StoredOrder[]> {
  let orders: StoredOrder[] = [];
  await expect
    .poll(
      async () => {
        orders = await allOrders(url);
        return orders.filter((order) => !isFinalStatus(DEFAULT_STATUS_TABLE, order.status)).length;
      },
      { timeout: 60_000, interval: 500 },
    )
    .toBe(0);
  return orders;
}

function missingMessages(orders: readonly StoredOrder[], receiver: CountingReceiver): string[] {
  const sent = new Set(
    [...receiver.messages.values()]
      .filter((m) => m.accepted > 0)
      .map((m) => `${String(m.body.reference)} ${String(m.body.status)}`),
  );
  return orders.map((order) => `${order.reference} ${order.status}`).filter((key) => !sent.has(key));
}
