/**
 * One network fault scenario under steady load, and the promises checked
 * after it, for simulators on one redis-server or on a cluster, each reached
 * through the tests' fault proxies. A scenario starts the load, lets it run
 * 2 s, runs the fault (which heals at its end), waits for the first order
 * placed after healing, lets the load run 2 s more and stops it. Then:
 *
 * - no 500: every answer is a 2xx, a 4xx the load may meet, or a 503 with
 *   one of the codes the scenario allows, and none takes longer than the
 *   request timeout;
 * - every order answered 200 exists afterwards, with its id, and a replay
 *   of its key never gives another id;
 * - no order is finalised twice; every final status gets a webhook message
 *   (at least once, one id per status);
 * - money is conserved: the balance plus the orders not refunded is the start.
 *
 * It prints what it measured: requests, 503s, the time from healing to the
 * first order placed again, messages sent, orders checked, and the p99 of
 * the answers before the fault and after the service came back (printed,
 * not asserted).
 */
import { expect } from "vitest";
import { DEFAULT_STATUS_TABLE, isFinalStatus, refundsWallet } from "../../src/contract/status-codes.ts";
import { createSimulator, type Simulator } from "../../src/simulator/create-simulator.ts";
import type { CountingReceiver } from "./counting-receiver.ts";
import type { FaultProxy } from "./fault-proxy.ts";
import { balanceOf, bearer, send } from "./http.ts";
import { type Answer, LOAD_TOKEN, p99, startSteadyLoad } from "./steady-load.ts";

/** Windows are the issue's lengths times FAULT_SCALE (default 1). */
export const FAULT_SCALE = Number(process.env.FAULT_SCALE ?? "1");
const REQUEST_TIMEOUT_MS = 10_000;
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const FAULT_ADMIN_TOKEN = "network-faults-admin-001";
/** The load customer's balance at the start. */
const FAULT_BALANCE = 1_000_000;

/**
 * One of a scenario's simulators on `store` (real clock, finals in 300 ms,
 * every final status sent to `webhookUrl` and retried every 500 ms),
 * listening on a free port; the caller closes it.
 */
export async function startScenarioSimulator(
  store: string,
  webhookUrl: string,
  durability: "memory" | "replicated",
): Promise<Simulator> {
  const sim = await createSimulator({
    store,
    clock: "real",
    timing: "300ms",
    adminToken: FAULT_ADMIN_TOKEN,
    demo: { token: LOAD_TOKEN, balance: FAULT_BALANCE, webhook: { url: webhookUrl } },
    webhooks: { schedule: ["0", ...Array.from({ length: 40 }, () => "500ms")].join(","), timeout: "2s" },
    scenarios: false,
    redisDurability: durability,
    onError: () => undefined,
  });
  try {
    await sim.listen(0);
  } catch (error) {
    await sim.close();
    throw error;
  }
  return sim;
}

export interface NetworkFault {
  readonly name: string;
  /** Runs the fault on every proxy for its window, and heals them. */
  run(proxies: readonly FaultProxy[]): Promise<void>;
}

const healAll = (proxies: readonly FaultProxy[]) => {
  for (const proxy of proxies) proxy.heal();
};

/** The faults of the network between the simulators and Redis, on every link at once. */
export const NETWORK_FAULTS: readonly NetworkFault[] = [
  {
    name: "200 ± 100 ms of latency for 10 s",
    async run(proxies) {
      for (const proxy of proxies) proxy.latency(200, 100);
      await sleep(10_000 * FAULT_SCALE);
      healAll(proxies);
    },
  },
  {
    name: "every connection reset every 2 s for 10 s",
    async run(proxies) {
      for (let elapsed = 0; elapsed < 10_000 * FAULT_SCALE; elapsed += 2_000) {
        for (const proxy of proxies) proxy.resetAll();
        await sleep(2_000);
      }
      healAll(proxies);
    },
  },
  {
    name: "a 5 s blackhole, then healing",
    async run(proxies) {
      for (const proxy of proxies) proxy.blackhole();
      await sleep(5_000 * FAULT_SCALE);
      healAll(proxies);
    },
  },
];

export interface ScenarioTarget {
  /** The simulators' URLs; the load goes round robin over them. */
  readonly urls: readonly string[];
  readonly receiver: CountingReceiver;
  /** Codes a 503 may carry (`store_unavailable`, and `store_not_replicated` where a replica may be missing). */
  readonly unavailableCodes: readonly string[];
  /** A prefix for the run's references, unique in its database. */
  readonly prefix: string;
}

export interface ScenarioFigures {
  readonly requests: number;
  readonly unavailable: number;
  readonly recoveryMs: number;
  readonly messages: number;
  readonly ordersChecked: number;
  readonly p99BeforeMs: number;
  readonly p99AfterMs: number;
}

/**
 * Runs `fault` (which heals at its end) under load, checks every promise and prints the figures.
 *
 * @example
 * await runFaultScenario(target, "a 5 s blackhole", () => NETWORK_FAULTS[2].run([proxy]));
 */
export async function runFaultScenario(
  target: ScenarioTarget,
  name: string,
  fault: () => Promise<void>,
): Promise<ScenarioFigures> {
  const load = startSteadyLoad(target.urls, { workers: 6, prefix: target.prefix, timeoutMs: REQUEST_TIMEOUT_MS });
  await sleep(2_000);
  const faultAt = Date.now();
  await fault();
  const healedAt = Date.now();
  const placedAfter = () =>
    load.answers.filter((a) => a.kind === "place" && a.status === 200 && a.startedAt >= healedAt);
  await expect.poll(() => placedAfter().length, { timeout: 30_000, interval: 100 }).toBeGreaterThan(0);
  const recoveredAt = Math.min(...placedAfter().map((a) => a.startedAt + a.ms));
  await sleep(2_000);
  await load.stop();

  const ordersChecked = await checkPromises(target, load);
  const figures: ScenarioFigures = {
    requests: load.answers.length,
    unavailable: load.answers.filter((a) => a.status === 503).length,
    recoveryMs: recoveredAt - healedAt,
    messages: target.receiver.messages.size,
    ordersChecked,
    p99BeforeMs: p99(load.answers.filter((a) => a.startedAt + a.ms < faultAt)),
    p99AfterMs: p99(load.answers.filter((a) => a.startedAt >= recoveredAt)),
  };
  const codes = [...new Set(load.answers.filter((a) => a.status === 503).map((a) => a.code))];
  const byCode = codes.map(
    (code) => `${load.answers.filter((a) => a.status === 503 && a.code === code).length} ${code}`,
  );
  console.log(
    `${name}: ${figures.requests} requests, ${figures.unavailable} answered 503${codes.length > 0 ? ` (${byCode.join(", ")})` : ""}, ` +
      `service back ${figures.recoveryMs} ms after healing, ${figures.messages} messages sent, ` +
      `${figures.ordersChecked} orders checked; p99 ${figures.p99BeforeMs} ms before, ${figures.p99AfterMs} ms after`,
  );
  return figures;
}

/** Every promise of the file's header, checked once the load stopped; resolves to the orders checked. */
async function checkPromises(target: ScenarioTarget, load: ReturnType<typeof startSteadyLoad>): Promise<number> {
  const allowed = (a: Answer) => a.status === 503 && target.unavailableCodes.includes(a.code ?? "");
  const unexpected = load.answers.filter((a) => a.status === 0 || (a.status >= 500 && !allowed(a)));
  expect(unexpected).toEqual([]);
  expect(load.replayedToNewId).toEqual([]);
  const url = target.urls[0] as string;
  // Every order stored, acknowledged or not (a 503 may follow a placement that was applied), is final.
  const orders = await waitAllFinal(url, FAULT_ADMIN_TOKEN);
  const byReference = new Map(orders.map((order) => [order.reference, order]));
  for (const [reference, id] of load.acknowledged) expect(byReference.get(reference)?.id, reference).toBe(id);
  let kept = 0;
  for (const order of orders) {
    const finals = order.history.filter((entry) => isFinalStatus(DEFAULT_STATUS_TABLE, entry.status));
    expect(finals, `${order.reference} finalised once`).toHaveLength(1);
    if (!refundsWallet(DEFAULT_STATUS_TABLE, order.status)) kept += order.amount;
  }
  expect(await balanceOf(url, LOAD_TOKEN)).toBe(FAULT_BALANCE - kept);
  await expectEveryMessage(url, target, orders);
  return orders.length;
}

/** Each final status's message accepted, under one id; on failure, what the simulator holds of each missing one. */
async function expectEveryMessage(url: string, target: ScenarioTarget, orders: readonly StoredOrder[]) {
  const { receiver } = target;
  try {
    await expect.poll(() => missingMessages(orders, receiver), { timeout: 60_000, interval: 500 }).toEqual([]);
  } catch (error) {
    for (const missing of missingMessages(orders, receiver)) {
      const reference = missing.split(" ")[0] as string;
      const held = await send(url, `/_sim/deliveries?reference=${reference}`, { headers: bearer(FAULT_ADMIN_TOKEN) });
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
}

interface StoredOrder {
  readonly id: string;
  readonly reference: string;
  readonly status: number;
  readonly amount: number;
  readonly history: readonly { readonly status: number }[];
}

async function allOrders(url: string, adminToken: string): Promise<StoredOrder[]> {
  const orders: StoredOrder[] = [];
  for (let cursor: string | null = ""; cursor !== null;) {
    const page = await send(url, `/_sim/orders?limit=1000&customer=demo${cursor === "" ? "" : `&cursor=${cursor}`}`, {
      headers: bearer(adminToken),
    });
    expect(page.status).toBe(200);
    orders.push(...(page.body.orders as StoredOrder[]));
    cursor = page.body.next_cursor as string | null;
  }
  return orders;
}

async function waitAllFinal(url: string, adminToken: string): Promise<StoredOrder[]> {
  let orders: StoredOrder[] = [];
  await expect
    .poll(
      async () => {
        orders = await allOrders(url, adminToken);
        return orders.filter((order) => !isFinalStatus(DEFAULT_STATUS_TABLE, order.status)).length;
      },
      { timeout: 60_000, interval: 500 },
    )
    .toBe(0)
    .catch((error: unknown) => {
      const pending = orders.filter((order) => !isFinalStatus(DEFAULT_STATUS_TABLE, order.status));
      console.error(`still pending: ${JSON.stringify(pending)}`);
      throw error;
    });
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
