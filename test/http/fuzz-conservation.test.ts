/**
 * 20,000 generated requests, valid and not, against the public and admin
 * APIs of one simulator, answered in-process: never a 5xx, the simulator
 * still answers afterwards, and no money is made or lost. Money is counted
 * through the admin API: the wallets of the starting customers plus what
 * their orders hold (debited, not refunded) must equal what they started
 * with. Seeded: `FUZZ_SEED=N` replays a run, and a failure prints the
 * command that does.
 */
import { fc } from "@fast-check/vitest";
import inject from "light-my-request";
import { expect, test } from "vitest";
import { BINARY_UNIT } from "../../src/contract/arbitraries.ts";
import { DEFAULT_STATUS_TABLE, refundsWallet, SUCCESS_STATUS } from "../../src/contract/status-codes.ts";
import type { Simulator, SimulatorOptions } from "../../src/index.ts";
import { DEMO_TOKEN, startSimulator } from "../support/http.ts";
import { changeWallet } from "../support/wallet-change.ts";
import {
  bodyArb,
  type FuzzReply,
  type FuzzRequest,
  headersArb,
  jsonArb,
  mostly,
  pathArb,
  requestArb,
  toRequest,
  violation,
} from "./fuzz-requests.ts";

const RUNS = Number(process.env.FUZZ_RUNS ?? 20_000);
const SEED = process.env.FUZZ_SEED === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.FUZZ_SEED);
const REPRODUCE = `FUZZ_SEED=${SEED} npx vitest run test/http/fuzz-conservation.test.ts`;
/** Money is counted every this many requests, and at the end. */
const AUDIT_EVERY = 2_000;
const STARTING_CUSTOMERS = ["demo", "acme"];
const ACME_TOKEN = "acme-token-fuzz-01";
/** Client addresses the requests come from; the audits come from another, never throttled. */
const FUZZ_ADDRESSES = ["198.51.100.1", "198.51.100.2", "2001:db8::3"];
/** Wrong admin tokens come from this address alone, so the throttle stops it and not the others. */
const GUESSER_ADDRESS = "203.0.113.66";
const WRONG_ADMIN_TOKEN = "admin-token-wrong-guess-0";
const AUDIT_ADDRESS = "192.0.2.250";
/** Stands for the id of an order placed earlier in the run (by its index), so admin routes meet real orders. */
const ORDER_SLOT = "{order}";

interface Sent extends FuzzRequest {
  readonly from: string;
  readonly orderPick: number;
}

const adminBodyArb = fc.oneof(
  fc.constantFrom("succeed", "fail", "timeout", "reverse", "explode").map((action) => JSON.stringify({ action })),
  fc.integer({ min: -1_000, max: 3_000_000 }).map((ms) => JSON.stringify({ ms })),
  fc.record({ status: fc.integer({ min: -1, max: 120 }), message: fc.string({ maxLength: 20 }) }).map(JSON.stringify),
  jsonArb.map((value) => JSON.stringify(value) ?? "null"),
  bodyArb.filter((body): body is string => body !== undefined),
);

const adminPathArb = fc.oneof(
  fc.constantFrom(
    "/_sim/clock/advance",
    `/_sim/orders/${ORDER_SLOT}/transition`,
    `/_sim/orders/${ORDER_SLOT}`,
    `/_sim/orders?customer=demo&status=${ORDER_SLOT}`,
    "/_sim/orders?customer=acme",
    "/_sim/customers/acme",
    "/_sim/customers/demo",
    "/_sim/customers",
    "/_sim/reset?customer=nobody",
    "/_sim/deliveries",
    "/_sim/journal?limit=5",
    "/_sim/scenarios",
  ),
  pathArb.map((path) => `/_sim${path}`),
);

const queryArb = fc.option(
  fc
    .dictionary(fc.string({ unit: "grapheme-ascii", maxLength: 12 }), fc.string({ unit: BINARY_UNIT, maxLength: 40 }), {
      maxKeys: 3,
    })
    .map((query) => `?${new URLSearchParams(query).toString()}`),
  { nil: "" },
);

/** The admin API with its token (or a wrong one, which the throttle counts), then the public and admin mix. */
const adminRequestArb = (adminToken: string): fc.Arbitrary<FuzzRequest> =>
  fc
    .record({
      method: fc.constantFrom("POST", "POST", "GET", "PATCH", "PUT", "DELETE"),
      path: adminPathArb,
      query: queryArb,
      headers: headersArb,
      body: fc.option(adminBodyArb, { nil: undefined }),
      wrongToken: fc.oneof({ arbitrary: fc.constant(false), weight: 9 }, { arbitrary: fc.constant(true), weight: 1 }),
      hugeHeader: fc.option(fc.integer({ min: 1_000, max: 20_000 }), { nil: undefined, freq: 20 }),
    })
    .map(({ method, path, query, headers, body, wrongToken, hugeHeader }) => {
      const request = toRequest(
        method,
        path.includes("?") ? path : `${path}${query}`,
        { ...headers, auth: "admin", contentType: mostlyJson(headers.contentType) },
        body,
        wrongToken ? WRONG_ADMIN_TOKEN : adminToken,
      );
      return hugeHeader === undefined
        ? request
        : { ...request, headers: { ...request.headers, "x-huge": "x".repeat(hugeHeader) } };
    });

/** Orders likely to be placed (and replayed, and refused for funds), so that money really moves. */
const placeableOrderArb: fc.Arbitrary<FuzzRequest> = fc
  .record({
    customer: fc.constantFrom("demo", "acme"),
    account: fc.constantFrom("0712345678", "+254733000111", "0760123456"),
    amount: fc.integer({ min: 10, max: 10_000 }),
    reference: fc.oneof(
      fc.nat(3_000).map((n) => `fz-${n}`),
      fc.string({ minLength: 1, maxLength: 40 }),
    ),
    shortcode: fc.option(fc.constant("600100"), { nil: undefined, freq: 3 }),
    key: fc.option(fc.oneof(fc.constantFrom("key-a", "key-b"), fc.uuid()), { nil: undefined }),
  })
  .map(({ customer, key, ...order }) => ({
    method: "POST",
    path: "/v1/airtime",
    headers: {
      authorization: `Bearer ${customer === "demo" ? DEMO_TOKEN : ACME_TOKEN}`,
      "content-type": "application/json",
      ...(key === undefined ? {} : { "idempotency-key": key }),
    },
    body: JSON.stringify({ ...order, currency: "KES" }),
  }));

function mostlyJson(contentType: string | undefined): string | undefined {
  return contentType === undefined || contentType.startsWith("application/json") ? "application/json" : contentType;
}

const sentArb = (adminToken: string): fc.Arbitrary<Sent> =>
  fc
    .record({
      request: fc.oneof(
        { arbitrary: requestArb(adminToken), weight: 4 },
        { arbitrary: placeableOrderArb, weight: 2 },
        { arbitrary: adminRequestArb(adminToken), weight: 3 },
      ),
      from: fc.constantFrom(...FUZZ_ADDRESSES),
      orderPick: mostly(fc.nat(), fc.constant(-1)),
    })
    .map(({ request, from, orderPick }) => ({
      ...request,
      from: request.headers.authorization === `Bearer ${WRONG_ADMIN_TOKEN}` ? GUESSER_ADDRESS : from,
      orderPick,
    }));

async function injectRequest(
  sim: Simulator,
  req: FuzzRequest,
  from: string = AUDIT_ADDRESS,
): Promise<FuzzReply | "unsendable"> {
  let res: inject.Response;
  try {
    res = await inject(sim.requestListener, {
      method: req.method as NonNullable<inject.InjectOptions["method"]>,
      url: req.path,
      headers: req.headers,
      remoteAddress: from,
      ...(req.body === undefined ? {} : { payload: req.body }),
    });
  } catch {
    // The injector refused to build it (an invalid header value): nothing reached the simulator.
    return "unsendable";
  }
  const contentType = res.headers["content-type"];
  return { status: res.statusCode, contentType: typeof contentType === "string" ? contentType : "", text: res.payload };
}

async function adminGet(sim: Simulator, path: string): Promise<unknown> {
  const headers = { authorization: `Bearer ${sim.adminToken}` };
  const reply = await injectRequest(sim, { method: "GET", path, headers });
  if (reply === "unsendable" || reply.status !== 200) {
    throw new Error(`GET ${path}: ${reply === "unsendable" ? reply : `${reply.status} ${reply.text}`}`);
  }
  return JSON.parse(reply.text);
}

interface ListedOrder {
  readonly amount: number;
  readonly status: number;
}

/** Every order the admin listing holds for `query`, following its pages. */
async function allOrders(sim: Simulator, query: string): Promise<ListedOrder[]> {
  const orders: ListedOrder[] = [];
  let cursor: string | null = null;
  do {
    const page = (await adminGet(
      sim,
      `/_sim/orders?limit=1000&${query}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`,
    )) as { orders: ListedOrder[]; next_cursor: string | null };
    orders.push(...page.orders);
    cursor = page.next_cursor;
  } while (cursor !== null);
  return orders;
}

const cents = (kes: number) => Math.round(kes * 100);

/** Wallets plus what orders hold (debited, not refunded), over the starting customers, in cents. */
async function moneyOf(sim: Simulator): Promise<number> {
  let total = 0;
  for (const id of STARTING_CUSTOMERS) {
    const customer = (await adminGet(sim, `/_sim/customers/${id}`)) as { wallets: { balance: number }[] };
    for (const wallet of customer.wallets) total += cents(wallet.balance);
    for (const order of await allOrders(sim, `customer=${id}`))
      if (!refundsWallet(DEFAULT_STATUS_TABLE, order.status)) total += cents(order.amount);
  }
  return total;
}

/** Admin requests that rightly change how much money there is: a top-up, a reset to configured balances. */
function setsMoney(req: FuzzRequest): boolean {
  return /^\/_sim\/(customers\/|reset)/.test(req.path) && req.method !== "GET";
}

const FUZZ_SIMULATOR: SimulatorOptions = {
  seed: 1,
  failureRate: 0.3,
  defaultPlugins: true,
  webhooks: false,
  adminToken: "admin-token-fuzz-conservation",
  // Acme runs out of money part-way: refusals for funds, and refunds making room again.
  customers: [{ id: "acme", token: ACME_TOKEN, balance: 50_000, wallets: [{ shortcode: "600100", balance: 20_000 }] }],
  demo: { token: DEMO_TOKEN, balance: 10_000_000 },
  onError: () => undefined,
};

interface FuzzRun {
  readonly result: fc.RunDetails<[Sent]>;
  readonly sent: number;
  readonly audits: number;
  readonly statuses: ReadonlyMap<number, number>;
  /** Money at the end of the run, and what it should be, in cents. */
  readonly money: number;
  readonly expected: number;
}

async function fuzz(sim: Simulator, runs: number, seed: number): Promise<FuzzRun> {
  const orderIds: string[] = [];
  const statuses = new Map<number, number>();
  let expected = await moneyOf(sim);
  let sent = 0;
  let audits = 0;

  const property = fc.asyncProperty(sentArb(sim.adminToken), async (req) => {
    const picked = orderIds.length === 0 || req.orderPick < 0 ? undefined : orderIds[req.orderPick % orderIds.length];
    const concrete = { ...req, path: req.path.replaceAll(ORDER_SLOT, picked ?? "ord_none") };
    const reply = await injectRequest(sim, concrete, req.from);
    if (reply === "unsendable") return;
    sent += 1;
    statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
    const problem = violation(concrete, reply);
    if (problem !== undefined) throw new Error(`${concrete.method} ${concrete.path}: ${problem}`);
    if (reply.status === 200 && concrete.path === "/v1/airtime" && concrete.method === "POST") {
      const id = (JSON.parse(reply.text) as { id?: unknown }).id;
      if (typeof id === "string") orderIds.push(id);
    }
    if (reply.status < 300 && setsMoney(concrete)) {
      expected = await moneyOf(sim);
    } else if (sent % AUDIT_EVERY === 0) {
      audits += 1;
      const money = await moneyOf(sim);
      if (money !== expected) throw new Error(`money not conserved: ${money} cents, expected ${expected}`);
    }
  });
  const result = await fc.check(property, { numRuns: runs, seed, endOnFailure: true });
  return { result, sent, audits, statuses, money: await moneyOf(sim), expected };
}

test(`fuzz of both APIs, ${RUNS} requests: never a 5xx, still answering, money conserved (seed ${SEED})`, async () => {
  const sim = await startSimulator(FUZZ_SIMULATOR);
  const run = await fuzz(sim, RUNS, SEED);
  expect(run.result.failed, `${fc.defaultReportMessage(run.result)}\nReproduce: ${REPRODUCE}`).toBe(false);
  expect(run.money, `money not conserved; reproduce: ${REPRODUCE}`).toBe(run.expected);
  expect(run.sent).toBeGreaterThanOrEqual(RUNS * 0.95);
  expect(run.audits).toBeGreaterThan(0);

  // The traffic reached every layer: orders placed and refused for funds, refusals, the throttle.
  for (const status of [200, 400, 401, 402, 404, 409, 415, 429]) {
    expect(run.statuses.get(status) ?? 0, `no ${status} in ${JSON.stringify([...run.statuses])}`).toBeGreaterThan(0);
  }
  // Money moved both ways: orders ended in success and in refunded failures.
  const orders = await allOrders(sim, "");
  expect(orders.some((order) => order.status === SUCCESS_STATUS)).toBe(true);
  expect(orders.some((order) => refundsWallet(DEFAULT_STATUS_TABLE, order.status))).toBe(true);

  expect(await adminGet(sim, "/_sim/clock")).toMatchObject({ mode: "virtual" });
  const health = await injectRequest(sim, {
    method: "GET",
    path: "/v1/balance",
    headers: { authorization: `Bearer ${DEMO_TOKEN}` },
  });
  expect(health).toMatchObject({ status: 200 });
}, 180_000);

test("the money audit catches a simulator that refunds twice", async () => {
  // A plugin that credits the wallet again whenever an order fails: money out of nowhere.
  const leaky = await startSimulator({
    ...FUZZ_SIMULATOR,
    plugins: [
      (context) => ({
        name: "double-refund",
        events: {
          async statusChanged(change) {
            if (refundsWallet(DEFAULT_STATUS_TABLE, change.order.status)) {
              await changeWallet(
                context.store,
                change.order.customerId,
                change.order.shortcode,
                change.order.amountCents,
              );
            }
          },
        },
      }),
    ],
  });
  const run = await fuzz(leaky, 4_000, 7);
  const caught = run.result.failed ? String(run.result.errorInstance) : `${run.money} vs ${run.expected}`;
  expect(run.result.failed || run.money !== run.expected, caught).toBe(true);
}, 120_000);
