import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  BalanceResponseSchema,
  ProblemSchema,
  SendAirtimeResponseSchema,
  TokenResponseSchema,
  TransactionStatusResponseSchema,
} from "../../src/contract/public-schemas.ts";
import type { Simulator } from "../../src/index.ts";
import {
  balanceOf,
  bearer,
  DEMO_TOKEN,
  expectProblem,
  orderBody,
  placeOrder,
  send,
  startSimulator,
} from "../support/http.ts";

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ tokenTtlSeconds: 60 });
  await sim.customers.createCustomer({
    id: "shop",
    token: "shop-token-0001",
    apiKey: "shop-api-key-0001",
    balance: 50,
    wallets: [{ shortcode: "600100", balance: 1_000 }],
  });
});
afterAll(() => sim.close());

describe("POST /v1/airtime", () => {
  test("places an order: 200 with id, reference, status 0 Pending", async () => {
    const body = orderBody();
    const reply = await placeOrder(sim, body, { "idempotency-key": "place-1" });
    expect(reply.status).toBe(200);
    expect(reply.contentType).toMatch(/^application\/json/);
    expect(SendAirtimeResponseSchema.parse(reply.body)).toMatchObject({
      reference: body.reference,
      status: 0,
      message: "Pending",
    });
    expect(reply.headers.get("idempotent-replayed")).toBeNull();
  });

  test("a retry with the same key replays the same id with Idempotent-Replayed: true and debits once", async () => {
    const before = await balanceOf(sim);
    const body = orderBody({ amount: 250 });
    const first = await placeOrder(sim, body, { "idempotency-key": "replay-1" });
    const second = await placeOrder(sim, body, { "idempotency-key": "replay-1" });
    expect(second.status).toBe(200);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(second.body.id).toBe(first.body.id);
    expect(await balanceOf(sim)).toBe(before - 250);
  });

  test("the replay reports the latest status", async () => {
    const body = orderBody();
    const first = await placeOrder(sim, body, { "idempotency-key": "latest-1" });
    await sim.clock.advance(2_000);
    const second = await placeOrder(sim, body, { "idempotency-key": "latest-1" });
    expect(second.body).toEqual({ id: first.body.id, reference: body.reference, status: 20, message: "Success" });
  });

  test("the key may come from the body, and a quoted RFC 8941 header is the same key", async () => {
    const body = orderBody({ idempotencyKey: "body-key-1" });
    const first = await placeOrder(sim, body);
    const second = await placeOrder(sim, body, { "idempotency-key": '"body-key-1"' });
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(second.body.id).toBe(first.body.id);
  });

  test("header and body keys that differ: 400 idempotency_key_conflict", async () => {
    const reply = await placeOrder(sim, orderBody({ idempotencyKey: "a-key" }), { "idempotency-key": "b-key" });
    expectProblem(reply, 400, "idempotency_key_conflict");
  });

  test.each([
    ["with a space", "has space"],
    ["too long", "k".repeat(256)],
    ["a broken sf-string", '"unterminated'],
    ["non-ASCII", "clé"],
  ])("an invalid header key (%s): 400 invalid_idempotency_key", async (_name, key) => {
    const headers = { "idempotency-key": key };
    const reply = await send(sim, `/v1/airtime`, {
      headers: { ...bearer(DEMO_TOKEN), ...headers },
      body: orderBody(),
    }).catch(() => undefined);
    // fetch refuses non-ByteString header values; those cannot reach any server.
    if (reply === undefined) return expect(key).toBe("clé");
    expectProblem(reply, 400, "invalid_idempotency_key");
  });

  test("an invalid body key alone: 400 invalid_idempotency_key pointing at #/idempotencyKey", async () => {
    const reply = await placeOrder(sim, orderBody({ idempotencyKey: "" }));
    expectProblem(reply, 400, "invalid_idempotency_key");
    expect(reply.body.errors[0].pointer).toBe("#/idempotencyKey");
  });

  test("same key, different payload: 409 idempotency_payload_mismatch and nothing changes", async () => {
    const body = orderBody();
    await placeOrder(sim, body, { "idempotency-key": "mismatch-1" });
    const before = await balanceOf(sim);
    const reply = await placeOrder(sim, { ...body, amount: 999 }, { "idempotency-key": "mismatch-1" });
    expectProblem(reply, 409, "idempotency_payload_mismatch");
    expect(await balanceOf(sim)).toBe(before);
  });

  test("payloads are compared after normalisation: another written form of the account replays", async () => {
    const body = orderBody({ account: "0712345678", amount: 10.1 });
    const first = await placeOrder(sim, body, { "idempotency-key": "normalised-1" });
    const second = await placeOrder(
      sim,
      { ...body, account: "+254712345678", amount: 10.1 },
      {
        "idempotency-key": "normalised-1",
      },
    );
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(second.body.id).toBe(first.body.id);
  });

  test("a reference used twice without a key: 409 duplicate_reference", async () => {
    const body = orderBody();
    expect((await placeOrder(sim, body)).status).toBe(200);
    expectProblem(await placeOrder(sim, body), 409, "duplicate_reference");
  });

  test("insufficient balance: 402 with the order envelope without id, nothing consumed", async () => {
    const body = orderBody({ amount: 60 });
    const reply = await placeOrder(sim, body, { "idempotency-key": "poor-1" }, "shop-token-0001");
    expect(reply.status).toBe(402);
    expect(reply.contentType).toMatch(/^application\/json/);
    expect(reply.body).toEqual({
      reference: body.reference,
      status: 7,
      message: "Insufficient balance",
      code: "insufficient_balance",
    });
    // Neither the key nor the reference was consumed: the same request succeeds from a funded wallet.
    const retry = await placeOrder(
      sim,
      { ...body, shortcode: "600100" },
      { "idempotency-key": "poor-1" },
      "shop-token-0001",
    );
    expect(retry.status).toBe(200);
    expect(retry.body.reference).toBe(body.reference);
  });

  test("service auto-detection: an operator-less prefix gives 400 service_undetectable", async () => {
    const reply = await placeOrder(sim, orderBody({ account: "0760123456" }));
    expectProblem(reply, 400, "service_undetectable");
  });

  test("an explicit service wins over the prefix (number portability)", async () => {
    const body = orderBody({ account: "0760123456", service: "airtel" });
    expect((await placeOrder(sim, body)).status).toBe(200);
    const lookup = await send(sim, `/v1/airtime/${body.reference}`, { headers: bearer(DEMO_TOKEN) });
    expect(lookup.body.service).toBe("airtel");
  });

  test("`network` is an alias of `service`; both and different is a validation error", async () => {
    const body = orderBody({ network: "telkom" });
    expect((await placeOrder(sim, body)).status).toBe(200);
    const reply = await placeOrder(sim, orderBody({ network: "telkom", service: "airtel" }));
    expectProblem(reply, 400, "validation_failed");
    expect(reply.body.errors).toEqual([{ pointer: "#/network", detail: expect.any(String) }]);
  });

  test("an unknown shortcode: 400 unknown_shortcode", async () => {
    expectProblem(await placeOrder(sim, orderBody({ shortcode: "999999" })), 400, "unknown_shortcode");
  });

  test("validation: errors carry JSON pointers", async () => {
    const reply = await placeOrder(sim, { account: "12", amount: "ten", currency: "USD", reference: "" });
    expectProblem(reply, 400, "validation_failed");
    const pointers = new Set(ProblemSchema.parse(reply.body).errors?.map((e) => e.pointer));
    expect([...pointers].sort()).toEqual(["#/account", "#/amount", "#/currency", "#/reference"]);
  });

  test("amounts outside the limits or with three decimals are refused", async () => {
    for (const amount of [9.99, 10_000.01, 10.123, 0, -5]) {
      const reply = await placeOrder(sim, orderBody({ amount }));
      expectProblem(reply, 400, "validation_failed");
      expect(reply.body.errors[0].pointer).toBe("#/amount");
    }
  });

  test("`phone` without `account`: the detail says phone is the customer's own, the recipient goes in account", async () => {
    const { account: _account, ...body } = orderBody({ phone: "0712345678" });
    const reply = await placeOrder(sim, body);
    expectProblem(reply, 400, "validation_failed");
    const issue = reply.body.errors.find((e: { pointer: string }) => e.pointer === "#/account");
    expect(issue.detail).toMatch(/phone.*customer.*account/);
  });

  test("__proto__ and constructor keys are refused with 400", async () => {
    for (const raw of ['{"__proto__":{"admin":true}}', '{"a":{"constructor":{"prototype":{}}}}']) {
      const reply = await send(sim, `/v1/airtime`, {
        method: "POST",
        headers: { ...bearer(DEMO_TOKEN), "content-type": "application/json" },
        raw,
      });
      expectProblem(reply, 400, "validation_failed");
    }
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  test("deep nesting is refused with 400", async () => {
    const raw = `{"a":${"[".repeat(5_000)}${"]".repeat(5_000)}}`;
    const reply = await send(sim, `/v1/airtime`, {
      method: "POST",
      headers: { ...bearer(DEMO_TOKEN), "content-type": "application/json" },
      raw,
    });
    expectProblem(reply, 400, "validation_failed");
  });
});

describe("body limits", () => {
  const path = "/v1/airtime";
  const auth = () => bearer(DEMO_TOKEN);

  test("malformed JSON: 400 malformed_json", async () => {
    const reply = await send(sim, path, {
      method: "POST",
      headers: { ...auth(), "content-type": "application/json" },
      raw: "{",
    });
    expectProblem(reply, 400, "malformed_json");
  });

  test("a JSON scalar at the top level: 400 malformed_json (strict parser)", async () => {
    const reply = await send(sim, path, {
      method: "POST",
      headers: { ...auth(), "content-type": "application/json" },
      raw: '"x"',
    });
    expectProblem(reply, 400, "malformed_json");
  });

  test("a non-JSON content type: 415 unsupported_media_type", async () => {
    const reply = await send(sim, path, {
      method: "POST",
      headers: { ...auth(), "content-type": "text/plain" },
      raw: "hi",
    });
    expectProblem(reply, 415, "unsupported_media_type");
  });

  test("a body without content type: 415", async () => {
    // Bytes, not a string: a string body would be sent as text/plain.
    const reply = await send(sim, path, { method: "POST", headers: auth(), raw: Buffer.from("{}") });
    expect(reply.status).toBe(415);
    expect(JSON.parse(reply.text).code).toBe("unsupported_media_type");
  });

  test("a body over 64 KiB: 413 payload_too_large", async () => {
    const reply = await placeOrder(sim, orderBody({ name: "x".repeat(65 * 1024) }));
    expectProblem(reply, 413, "payload_too_large");
  });

  test("a body just under 64 KiB is read (and refused by validation, not by size)", async () => {
    const reply = await placeOrder(sim, orderBody({ name: "x".repeat(60 * 1024) }));
    expectProblem(reply, 400, "validation_failed");
  });
});

describe("routing and auth", () => {
  test("an unknown route: 404 not_found", async () => {
    expectProblem(await send(sim, `/v2/airtime`), 404, "not_found");
  });

  test.each([
    ["GET", "/v1/airtime", "POST"],
    ["DELETE", "/v1/airtime/some-ref", "GET, HEAD"],
    ["POST", "/v1/balance", "GET, HEAD"],
    ["GET", "/v1/auth/token", "POST"],
  ])("%s %s: 405 method_not_allowed with Allow: %s", async (method, path, allow) => {
    const reply = await send(sim, `${path}`, { method, headers: bearer(DEMO_TOKEN) });
    expectProblem(reply, 405, "method_not_allowed");
    expect(reply.headers.get("allow")).toBe(allow);
  });

  test("no token: 401 missing_token with WWW-Authenticate: Bearer", async () => {
    const reply = await send(sim, `/v1/balance`);
    expectProblem(reply, 401, "missing_token");
    expect(reply.headers.get("www-authenticate")).toMatch(/^Bearer/);
  });

  test("a wrong token or scheme: 401 invalid_token with WWW-Authenticate: Bearer", async () => {
    for (const authorization of ["Bearer not-a-token", "Basic Zm9vOmJhcg==", "Bearer"]) {
      const reply = await send(sim, `/v1/balance`, { headers: { authorization } });
      expectProblem(reply, 401, "invalid_token");
      expect(reply.headers.get("www-authenticate")).toMatch(/^Bearer/);
    }
  });

  test("auth comes before validation: a bad body without a token is a 401", async () => {
    const reply = await send(sim, `/v1/airtime`, { method: "POST", body: { nothing: true } });
    expectProblem(reply, 401, "missing_token");
  });
});

describe("GET /v1/airtime/{reference} and GET /v1/balance", () => {
  test("the lookup returns the transaction with ISO timestamps, KES amounts and history", async () => {
    const body = orderBody({ amount: 12.5, account: "254733000111" });
    const placed = await placeOrder(sim, body);
    const reply = await send(sim, `/v1/airtime/${encodeURIComponent(body.reference as string)}`, {
      headers: bearer(DEMO_TOKEN),
    });
    expect(reply.status).toBe(200);
    const transaction = TransactionStatusResponseSchema.parse(reply.body);
    expect(transaction).toMatchObject({
      id: placed.body.id,
      status: 0,
      service: "airtel",
      account: "+254733000111",
      amount: 12.5,
      currency: "KES",
      shortcode: null,
    });
    expect(transaction.history).toEqual([{ status: 0, message: "Pending", at: transaction.createdAt }]);
  });

  test("an unknown reference: 404 not_found", async () => {
    expectProblem(await send(sim, `/v1/airtime/nope`, { headers: bearer(DEMO_TOKEN) }), 404, "not_found");
  });

  test("a malformed percent-encoding in the reference: 404, not a 5xx", async () => {
    expectProblem(await send(sim, `/v1/airtime/%E0%A4%A`, { headers: bearer(DEMO_TOKEN) }), 404, "not_found");
  });

  test("the balance: status 20, the default wallet and every wallet", async () => {
    const reply = await send(sim, `/v1/balance`, { headers: bearer("shop-token-0001") });
    expect(BalanceResponseSchema.parse(reply.body)).toMatchObject({ status: 20, currency: "KES", shortcode: null });
    expect(reply.body.wallets.map((w: { shortcode: string | null }) => w.shortcode)).toEqual([null, "600100"]);
  });

  test("the balance of one shortcode, and an unknown shortcode: 400 unknown_shortcode", async () => {
    const reply = await send(sim, `/v1/balance?shortcode=600100`, { headers: bearer("shop-token-0001") });
    expect(reply.body).toMatchObject({ status: 20, shortcode: "600100" });
    expectProblem(
      await send(sim, `/v1/balance?shortcode=1`, { headers: bearer("shop-token-0001") }),
      400,
      "unknown_shortcode",
    );
  });

  test("an empty shortcode: 400 validation_failed at #/shortcode, not the default wallet", async () => {
    const reply = await send(sim, `/v1/balance?shortcode=`, { headers: bearer("shop-token-0001") });
    expectProblem(reply, 400, "validation_failed");
    expect(reply.body.errors).toContainEqual({
      pointer: "#/shortcode",
      detail: "must be 1 to 32 well-formed characters",
    });
  });

  test("a 33-character shortcode: 400 validation_failed, not unknown_shortcode; 32 characters are a lookup", async () => {
    const tooLong = await send(sim, `/v1/balance?shortcode=${"6".repeat(33)}`, { headers: bearer("shop-token-0001") });
    expectProblem(tooLong, 400, "validation_failed");
    expect(tooLong.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(["#/shortcode"]);
    const longest = await send(sim, `/v1/balance?shortcode=${"6".repeat(32)}`, { headers: bearer("shop-token-0001") });
    expectProblem(longest, 400, "unknown_shortcode");
  });
});

describe("POST /v1/auth/token", () => {
  const basic = (id: string, key: string) => ({
    authorization: `Basic ${Buffer.from(`${id}:${key}`).toString("base64")}`,
  });

  test("HTTP Basic customerId:apiKey issues a token that authenticates", async () => {
    const reply = await send(sim, `/v1/auth/token`, {
      method: "POST",
      headers: basic("shop", "shop-api-key-0001"),
    });
    expect(reply.status).toBe(200);
    const token = TokenResponseSchema.parse(reply.body);
    expect(token.expires_in).toBe(60);
    expect(token.issued_at).toBe(sim.clock.now());
    expect((await send(sim, `/v1/balance`, { headers: bearer(token.access_token) })).status).toBe(200);
  });

  test("the issued token expires on the simulator clock", async () => {
    const reply = await send(sim, `/v1/auth/token`, {
      method: "POST",
      headers: basic("shop", "shop-api-key-0001"),
    });
    await sim.clock.advance(59_000);
    expect((await send(sim, `/v1/balance`, { headers: bearer(reply.body.access_token) })).status).toBe(200);
    await sim.clock.advance(1_000);
    expectProblem(await send(sim, `/v1/balance`, { headers: bearer(reply.body.access_token) }), 401, "invalid_token");
  });

  test.each([
    ["a wrong key", basic("shop", "wrong-key")],
    ["an unknown customer", basic("nobody", "shop-api-key-0001")],
    ["no credentials", {}],
    ["a bearer token", bearer(DEMO_TOKEN)],
  ])("%s: 401 invalid_client", async (_name, headers) => {
    const reply = await send(sim, `/v1/auth/token`, { method: "POST", headers });
    expectProblem(reply, 401, "invalid_client");
  });
});
