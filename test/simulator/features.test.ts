/**
 * The simulator's own features, each through its public and admin HTTP API
 * on a virtual clock: the failure rate, multi-step scenario plans, admin
 * balance changes to the named wallet, admin transitions of unknown orders,
 * and a retry that resumes an order's lifecycle. The contract harness cannot
 * see these (the interface knows none of them), so these tests are what
 * `npm run mutation:tests` holds them to.
 */
import { afterAll, describe, expect, test } from "vitest";
import { createAdminClient } from "../../src/harness/admin-client.ts";
import { createSimulator, type Simulator } from "../../src/simulator/create-simulator.ts";

const TIMING_MS = 1000;
const START_KES = 1000;
const SHORTCODE = "600100";
const open: Simulator[] = [];

afterAll(async () => {
  for (const sim of open.splice(0)) await sim.close();
});

/** A simulator with one customer holding a default and a shortcode wallet, and helpers over HTTP. */
async function start(failureRate = 0) {
  const sim = await createSimulator({
    clock: "virtual",
    seed: 3,
    timing: { kind: "fixed", ms: TIMING_MS },
    failureRate,
    demo: false,
  });
  open.push(sim);
  const url = await sim.listen(0, "127.0.0.1");
  const admin = createAdminClient(url, sim.adminToken);
  const token = `features-${open.length}`;
  const customer = await admin.createCustomer({
    token,
    balance: START_KES,
    wallets: [{ shortcode: SHORTCODE, balance: START_KES }],
  });
  const call = async (method: string, path: string, body?: unknown, bearer = token) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json().catch(() => undefined)) as Record<string, unknown> };
  };
  const order = (reference: string, extra: Record<string, unknown> = {}) =>
    call("POST", "/v1/airtime", {
      account: "0712345678",
      amount: 10,
      currency: "KES",
      reference,
      service: "safaricom",
      ...extra,
    });
  const statusOf = async (reference: string) => (await call("GET", `/v1/airtime/${reference}`)).body.status;
  const wallets = async () =>
    Object.fromEntries(
      (await admin.getCustomer(customer.id)).wallets.map((w) => [w.shortcode ?? "default", w.balance]),
    );
  return { sim, admin, customer, call, order, statusOf, wallets };
}

describe("the failure rate", () => {
  test("at 1 every order fails and is refunded; at 0 every order succeeds", async () => {
    const failing = await start(1);
    for (const reference of ["f1", "f2", "f3"]) expect((await failing.order(reference)).status).toBe(200);
    await failing.admin.advance(TIMING_MS);
    for (const reference of ["f1", "f2", "f3"]) expect(await failing.statusOf(reference)).toBe(2);
    expect((await failing.wallets()).default).toBe(START_KES);

    const succeeding = await start(0);
    for (const reference of ["s1", "s2", "s3"]) expect((await succeeding.order(reference)).status).toBe(200);
    await succeeding.admin.advance(TIMING_MS);
    for (const reference of ["s1", "s2", "s3"]) expect(await succeeding.statusOf(reference)).toBe(20);
    expect((await succeeding.wallets()).default).toBe(START_KES - 30);
  });
});

describe("a multi-step scenario plan", () => {
  test("takes every step, each counted from the one before", async () => {
    const { admin, customer, order, statusOf } = await start();
    await admin.loadScenario({
      name: "three-steps",
      description: "Submitted, then Processing, then Success.",
      rules: [
        {
          name: "path",
          effects: {
            path: [
              { status: 3, after: "100ms" },
              { status: 31, after: "200ms" },
              { status: 20, after: "300ms" },
            ],
          },
        },
      ],
    });
    await admin.activateScenario("three-steps", customer.id);
    expect((await order("p1")).status).toBe(200);
    const seen: unknown[] = [];
    for (const ms of [99, 1, 199, 1, 299, 1]) {
      await admin.advance(ms);
      seen.push(await statusOf("p1"));
    }
    expect(seen).toEqual([0, 3, 3, 31, 31, 20]);
  });
});

describe("admin balance changes", () => {
  test("set the named wallet and leave the other as it is", async () => {
    const { sim, customer, wallets } = await start();
    const patch = (body: unknown) =>
      fetch(`${sim.url}/_sim/customers/${customer.id}`, {
        method: "PATCH",
        headers: { authorization: `Bearer ${sim.adminToken}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    expect((await patch({ wallets: [{ shortcode: SHORTCODE, balance: 77 }] })).status).toBe(200);
    expect(await wallets()).toEqual({ default: START_KES, [SHORTCODE]: 77 });
    expect((await patch({ wallets: [{ shortcode: null, balance: 55 }] })).status).toBe(200);
    expect(await wallets()).toEqual({ default: 55, [SHORTCODE]: 77 });
  });

  test("leave what the change does not name as it is: name, tokens, key, webhook", async () => {
    const { sim, admin, customer, call } = await start();
    const before = await admin.getCustomer(customer.id);
    const res = await fetch(`${sim.url}/_sim/customers/${customer.id}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${sim.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ wallets: [{ shortcode: null, balance: 12 }] }),
    });
    expect(res.status).toBe(200);
    const { wallets: _changed, ...rest } = await admin.getCustomer(customer.id);
    const { wallets: _before, ...restBefore } = before;
    expect(rest).toEqual(restBefore);
    expect((await call("GET", "/v1/balance")).body.amount).toBe(12);
  });

  test("of an unknown customer answer 404, even naming another customer's token", async () => {
    const { sim } = await start();
    const res = await fetch(`${sim.url}/_sim/customers/cus_unknown`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${sim.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ tokens: [`features-${open.length}`] }),
    });
    expect(res.status).toBe(404);
  });

  test("an order naming the shortcode is debited and refunded there", async () => {
    const { admin, order, wallets, call } = await start();
    const placed = await order("w1", { shortcode: SHORTCODE });
    expect(placed.status).toBe(200);
    expect(await wallets()).toEqual({ default: START_KES, [SHORTCODE]: START_KES - 10 });
    expect((await admin.transition(String(placed.body.id), "fail")).kind).toBe("transitioned");
    expect(await wallets()).toEqual({ default: START_KES, [SHORTCODE]: START_KES });
    expect((await call("GET", "/v1/balance")).body.amount).toBe(START_KES);
  });
});

describe("an admin transition", () => {
  test("of an unknown order answers 404 not_found, not a 5xx", async () => {
    const { sim } = await start();
    const res = await fetch(`${sim.url}/_sim/orders/ord_unknown/transition`, {
      method: "POST",
      headers: { authorization: `Bearer ${sim.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ action: "succeed" }),
    });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { code?: string }).code).toBe("not_found");
  });
});
