/**
 * The simulator speaking a provider's dialect (`provider`): every public
 * answer written through the profile, read back through the same profile's
 * compiled readers, and our spec's bodies left as they were.
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { compileProfile } from "../../src/contract/provider-profile/compile.ts";
import { loadProviderProfile } from "../../src/contract/provider-profile/load.ts";
import { compileRenderer } from "../../src/contract/provider-profile/render.ts";
import type { ProviderProfile } from "../../src/contract/provider-profile/schema.ts";
import type { Simulator } from "../../src/index.ts";
import { bearer, DEMO_TOKEN, orderBody, placeOrder, send, startSimulator } from "../support/http.ts";

const FOREIGN_PROFILE = fileURLToPath(new URL("../harness/foreign/foreign-profile.yaml", import.meta.url));

async function foreignProfile(): Promise<ProviderProfile> {
  const loaded = await loadProviderProfile(FOREIGN_PROFILE);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  return loaded.profile;
}

describe("our spec is the default profile", () => {
  const render = compileRenderer(undefined, { newUuid: () => "uuid" });

  test("every body leaves as the very object the presenters built", () => {
    const order = { id: "ord_1", reference: "r-1", status: 0, message: "Pending" };
    const balance = { status: 20, amount: 10, currency: "KES", shortcode: null, wallets: [] };
    expect(render.order(order)).toBe(order);
    expect(render.lookup(order)).toBe(order);
    expect(render.balance(balance)).toBe(balance);
    expect(render.webhook(order)).toBe(order);
  });

  test("errors stay RFC 9457 problems with the catalogue's status", () => {
    const problem = { type: "t", title: "Not found", status: 404, detail: "d", instance: "/x", code: "not_found" };
    expect(render.error(problem)).toEqual({
      status: 404,
      contentType: "application/problem+json; charset=utf-8",
      body: problem,
    });
  });

  test("insufficient balance: 402 with reference, status 7, message and code, in that order", () => {
    const answer = render.insufficient({
      reference: "r-1",
      status: 7,
      message: "Insufficient balance",
      code: "insufficient_balance",
    });
    expect(answer.status).toBe(402);
    expect(JSON.stringify(answer.body)).toBe(
      '{"reference":"r-1","status":7,"message":"Insufficient balance","code":"insufficient_balance"}',
    );
  });
});

describe("the simulator serving the foreign provider's profile", () => {
  let sim: Simulator;
  let profile: ReturnType<typeof compileProfile>;
  beforeAll(async () => {
    const file = await foreignProfile();
    profile = compileProfile(file);
    sim = await startSimulator({ provider: file });
    await sim.customers.createCustomer({ id: "poor", token: "poor-token-00001", balance: 20 });
  });
  afterAll(() => sim.close());

  test("the send answer sits under /data with the table's number, the lookup writes words and string money", async () => {
    const body = orderBody({ amount: 150 });
    const placed = await placeOrder(sim, body);
    expect(placed.status).toBe(200);
    const order = profile.readOrder("order", placed.body);
    expect(order).toMatchObject({ reference: body.reference, status: 0 });
    expect(order.id).toMatch(/^ord_/);

    await sim.clock.advance(60_000);
    const lookup = await send(sim, `/v1/airtime/${body.reference}`, { headers: bearer(DEMO_TOKEN) });
    expect(lookup.status).toBe(200);
    expect(lookup.body.data.amount).toBe("150.00");
    expect(lookup.body.data.ref).toBe(body.reference);
    const read = profile.readOrder("lookup", lookup.body);
    expect(read).toMatchObject({ id: order.id, reference: body.reference, amountCents: 15_000 });
    expect(["SUCCESS", "FAILED", "TIMEOUT", "REVERSED"]).toContain(lookup.body.data.status);
    expect(profile.statuses.isFinal(read.status as number)).toBe(true);
  });

  test("the balance is a decimal string at /data/available", async () => {
    const reply = await send(sim, "/v1/balance", { headers: bearer(DEMO_TOKEN) });
    expect(reply.status).toBe(200);
    expect(reply.body.data.available).toMatch(/^\d+\.\d{2}$/);
    expect(profile.readBalanceCents(reply.body)).toBeGreaterThan(0);
  });

  test("invalid input is 422 INVALID_REQUEST at /error/code, as plain JSON", async () => {
    const reply = await placeOrder(sim, orderBody({ amount: -5 }));
    expect(reply.status).toBe(422);
    expect(reply.contentType).toMatch(/^application\/json/);
    expect(profile.readErrorCode(reply.body)).toBe("INVALID_REQUEST");
    expect(typeof reply.body.error.message).toBe("string");
  });

  test.each([
    ["an amount with decimals", { amount: 10.5 }, "#/amount"],
    ["an amount above the provider's 5,000", { amount: 6000 }, "#/amount"],
    ["an account in E.164 form", { account: "+254712345678" }, "#/account"],
    ["a reference outside its pattern", { reference: "under_score_ref" }, "#/reference"],
    ["a service it does not serve", { account: "0747000000", service: "equitel" }, "#/service"],
  ])("the profile's domain refuses %s with 422 INVALID_REQUEST", async (_what, change, pointer) => {
    const reply = await placeOrder(sim, orderBody(change));
    expect(reply.status).toBe(422);
    expect(profile.readErrorCode(reply.body)).toBe("INVALID_REQUEST");
    // The provider's error body is {code, message}: the offending field is named in the message alone.
    expect(reply.body.error.message).toContain(pointer);
    expect(Object.keys(reply.body.error).sort()).toEqual(["code", "message"]);
  });

  test("no token is 401 UNAUTHORIZED, an unknown reference 404 NOT_FOUND", async () => {
    const anonymous = await send(sim, "/v1/balance");
    expect(anonymous.status).toBe(401);
    expect(profile.readErrorCode(anonymous.body)).toBe("UNAUTHORIZED");
    const missing = await send(sim, "/v1/airtime/no-such-order", { headers: bearer(DEMO_TOKEN) });
    expect(missing.status).toBe(404);
    expect(profile.readErrorCode(missing.body)).toBe("NOT_FOUND");
  });

  test("a wrong method is 404 NOT_FOUND, as the profile says", async () => {
    const reply = await send(sim, "/v1/balance", { method: "DELETE", headers: bearer(DEMO_TOKEN) });
    expect(reply.status).toBe(404);
    expect(profile.readErrorCode(reply.body)).toBe("NOT_FOUND");
  });

  test("insufficient balance is HTTP 200 without id, the table's insufficient status and code (§7)", async () => {
    const body = orderBody({ amount: 500 });
    const reply = await placeOrder(sim, body, {}, "poor-token-00001");
    expect(reply.status).toBe(200);
    const order = profile.readOrder("order", reply.body);
    expect(order).toMatchObject({ id: undefined, reference: body.reference, status: 104 });
    expect(profile.readErrorCode(reply.body)).toBe("INSUFFICIENT_FUNDS");
  });

  test("the admin API still speaks our spec", async () => {
    const reply = await send(sim, "/_sim/orders/none", { headers: bearer(sim.adminToken) });
    expect(reply.contentType).toMatch(/^application\/problem\+json/);
    expect(reply.body.code).toBeTypeOf("string");
  });
});
