/**
 * The foreign provider is what it claims: a correct deployment of the
 * interface, shaped differently from our spec (spec/openapi.yaml,
 * docs/webhooks.md) wherever the interface says "not shown". Everything goes
 * over raw HTTP, as the contract harness will see it. Its differences:
 *
 * | # | Dimension (interface §) | Our spec | The foreign provider |
 * |---|---|---|---|
 * | 1 | Send answer body (§2.3) | `{id, reference, status, message}` | `{success: true, data: {transactionId, reference, statusCode, message}}` |
 * | 2 | Lookup body (§2.4) | flat `{id, reference, status, amount, …}` | `{success: true, data: {transactionId, ref, status, amount, msisdn, network, …}}` |
 * | 3 | Balance body (§2.4) | `{status, amount, currency, wallets}` | `{success: true, data: {available, currency, shortcode}}` |
 * | 4 | Money (§2.4) | numbers (`150`) | decimal strings (`"150.00"`) in lookup, balance and webhook |
 * | 5 | Statuses (§3) | codes everywhere (20 Success, 2 Failed, 6 Timeout, 8 Reversed) | words in lookup and webhook (SUCCESS, FAILED, TIMEOUT, REVERSED); its own codes in the send answer (100, 101, 102, 103) |
 * | 6 | Error body (§7) | problem+json, flat `code` | `{success: false, error: {code, message}}`, application/json |
 * | 7 | Error codes (§7) | validation_failed, missing_token, not_found … | INVALID_REQUEST, UNAUTHORIZED, NOT_FOUND, DUPLICATE_REFERENCE, RATE_LIMITED |
 * | 8 | Invalid input (§7) | 400 (415 for another media type) | 422, malformed JSON and a non-JSON content type included |
 * | 9 | Authentication failure (§5, §7) | 401 with `WWW-Authenticate: Bearer` | 401 without `WWW-Authenticate` |
 * | 10 | Insufficient balance (§7) | 402 with `code` | 200, `success: false`, status 104, no `transactionId` |
 * | 11 | Wrong method (§4) | 405 with `Allow` | 404 NOT_FOUND |
 * | 12 | Replay marker (§4.4) | `Idempotent-Replayed: true` | no header: a replay looks like the first answer |
 * | 13 | Webhook body (§6) | flat order, `type: airtime.status` | `{event: airtime.completed / airtime.failed / airtime.reversed, data: {…order}, sentAt}` |
 * | 14 | Webhook delivery id (§6) | `webhook-id` | `X-Delivery-Id`, the same on every retry |
 * | 15 | Webhook signature (§6) | Standard Webhooks (`webhook-signature`, base64) | `X-Signature: sha256=<hex HMAC-SHA256 of "<X-Timestamp>.<body>">` |
 * | 16 | Webhook retries (§6) | Standard Webhooks schedule | first attempt, then after 300 ms, 1.5 s, 5 s (configurable) |
 * | 17 | Webhook registration (§6) | per customer, admin API | one URL and secret given when the provider starts |
 * | 18 | Amount (§2.1, §8) | 10–10,000 KES, 2 decimals | 10–5,000 KES, whole shillings |
 * | 19 | Reference (§2.1) | up to 100 characters, any but control | `^[A-Za-z0-9-]{6,24}$` |
 * | 20 | Account (§2.1) | four written forms | local (07…, 01…) and international (254…) only; no `+` |
 * | 21 | Services (§2.2) | the five | safaricom, airtel, telkom |
 * | 22 | Tokens (§5) | fixed tokens, or `POST /v1/auth/token` | `POST /oauth/token` (OAuth client credentials, HTTP Basic, form body), short-lived |
 * | 23 | Rate limit (§8) | none (a 429 only from a scenario) | 429 with `Retry-After` above N requests per second |
 * | 24 | Body limit (§8) | 413 above 64 KiB | the connection is reset above 64 KiB |
 * | 25 | Wallets (§2.1 `shortcode`) | several per customer | one per customer; another shortcode is invalid input |
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { exec } from "node:child_process";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import { afterEach, expect, test } from "vitest";
import { parse } from "yaml";
import {
  anOrder,
  balance,
  call,
  finalOf,
  isFinalWord,
  lookup,
  order,
  startKit,
  until,
  WEBHOOK_SECRET,
  type Answer,
  type Kit,
} from "./foreign-client.ts";
import type { ForeignTargetOptions } from "./foreign-target.ts";

const running: Kit[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((kit) => kit.close()));
});

async function provider(options: ForeignTargetOptions = {}): Promise<Kit> {
  const kit = await startKit(options);
  running.push(kit);
  return kit;
}

/** RFC 6901, enough for the profile's pointers. */
function at(document: unknown, pointer: string): unknown {
  return pointer
    .split("/")
    .slice(1)
    .map((token) => token.replaceAll("~1", "/").replaceAll("~0", "~"))
    .reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], document);
}

test("orders, lookups and balances come in an envelope with money as decimal strings", async () => {
  const kit = await provider({ failureRate: 0, reversalRate: 0 });
  const placed = await order(kit, anOrder({ reference: "env-000001", amount: 150 }));
  expect(placed.status).toBe(200);
  expect(placed.headers.get("idempotent-replayed")).toBeNull();
  expect(placed.body).toEqual({
    success: true,
    data: { transactionId: expect.stringMatching(/^TX/), reference: "env-000001", statusCode: 0, message: "Pending" },
  });
  const found = await finalOf(kit, "env-000001");
  expect(found.body.success).toBe(true);
  expect(found.body.data).toMatchObject({ transactionId: placed.body.data.transactionId, ref: "env-000001" });
  expect(found.body.data).toMatchObject({ status: "SUCCESS", amount: "150.00", msisdn: "254712000101" });
  expect(await balance(kit)).toBe("9999850.00");
});

test("statuses are words in the lookup and the webhook, and the provider's own numbers in a replay", async () => {
  const kit = await provider({ failureRate: 0.5, reversalRate: 0.5, seed: 7 });
  const { receiver } = kit;
  const references = Array.from({ length: 12 }, (_, index) => `word-${String(index).padStart(4, "0")}`);
  for (const reference of references) await order(kit, anOrder({ reference, idempotencyKey: `key-${reference}` }));
  const finals = await Promise.all(references.map((reference) => finalOf(kit, reference)));
  const words = new Set(finals.map((answer) => answer.body.data.status as string));
  expect([...words].every(isFinalWord)).toBe(true);
  expect(words.has("SUCCESS") || words.has("REVERSED")).toBe(true);
  expect(words.has("FAILED") || words.has("TIMEOUT")).toBe(true);
  const replay = await order(kit, anOrder({ reference: references[0], idempotencyKey: `key-${references[0]}` }));
  expect([100, 101, 102, 103]).toContain(replay.body.data.statusCode);
  await until(
    async () => receiver.deliveries.length,
    (count) => count >= references.length,
  );
  const events = receiver.deliveries.map((delivery) => JSON.parse(delivery.body));
  expect(events.every((event) => isFinalWord(event.data.status))).toBe(true);
});

test("a webhook is signed with HMAC-SHA256 hex over timestamp.body, under one delivery id across retries", async () => {
  const kit = await provider({ failureRate: 0, reversalRate: 0 });
  const { receiver } = kit;
  receiver.refuse(1);
  await order(kit, anOrder({ reference: "hook-000001" }));
  await until(
    async () => receiver.deliveries.length,
    (count) => count >= 2,
  );
  const [refused, accepted] = receiver.deliveries;
  expect(refused?.headers["x-delivery-id"]).toBe(accepted?.headers["x-delivery-id"]);
  for (const delivery of [refused, accepted]) {
    const timestamp = String(delivery?.headers["x-timestamp"]);
    const expected = createHmac("sha256", WEBHOOK_SECRET).update(`${timestamp}.${delivery?.body}`).digest("hex");
    const signature = String(delivery?.headers["x-signature"]);
    expect(signature.startsWith("sha256=")).toBe(true);
    expect(timingSafeEqual(Buffer.from(signature.slice(7), "hex"), Buffer.from(expected, "hex"))).toBe(true);
  }
  const event = JSON.parse(accepted?.body ?? "{}");
  expect(event).toMatchObject({ event: "airtime.completed", data: { ref: "hook-000001", status: "SUCCESS" } });
  expect(event.data.amount).toBe("150.00");
});

test("every pointer of the foreign profile finds its value in real answers", async () => {
  const profile = parse(await readFile(new URL("./foreign-profile.yaml", import.meta.url), "utf8"));
  const kit = await provider({ failureRate: 0, reversalRate: 0 });
  const { target, receiver } = kit;
  const body = anOrder({ reference: "prof-000001", idempotencyKey: "prof-key" });
  const answers: Record<string, unknown> = {
    order: (await order(kit, body)).body,
    lookup: (await finalOf(kit, "prof-000001")).body,
    balance: (await call(`${target.url}/v1/balance`, target.tokens.primary)).body,
    error: (await order(kit, { ...body, amount: 20 })).body,
  };
  await until(
    async () => receiver.deliveries.length,
    (count) => count >= 1,
  );
  answers.webhook = JSON.parse(receiver.deliveries[0]?.body ?? "{}");
  for (const [kind, pointers] of Object.entries(profile.bodies as Record<string, Record<string, unknown>>)) {
    const { extra, passthrough, ...fields } = pointers as {
      extra?: Record<string, { constant: unknown }>;
      passthrough?: Record<string, string>;
    };
    // Our members the profile keeps are written by the provider too, at the same pointers.
    for (const [field, pointer] of Object.entries({ ...(fields as Record<string, string>), ...passthrough })) {
      expect(at(answers[kind], pointer), `${kind}.${field} at ${pointer}`).toBeDefined();
    }
    // The envelope's constants are what the provider really writes there.
    for (const [pointer, template] of Object.entries(extra ?? {})) {
      expect(at(answers[kind], pointer), `${kind}.extra at ${pointer}`).toEqual(template.constant);
    }
  }
  expect(at(answers.error, profile.bodies.error.code)).toBe("idempotency_payload_mismatch");
  const words = (profile.statuses.table as { word: string }[]).map((row) => row.word);
  expect(words).toContain(at(answers.lookup, profile.bodies.lookup.status));
  expect(profile.webhooks.event.values).toContain(at(answers.webhook, profile.webhooks.event.pointer));
});

test("a token expires; print-token fetches a new one that works", async () => {
  // Long enough that the renewed token is still alive when it is used on a busy machine.
  const kit = await provider({ tokenLifetimeMs: 3000 });
  const { target } = kit;
  expect((await call(`${target.url}/v1/balance`, target.tokens.primary)).status).toBe(200);
  const expired = await until(
    () => call(`${target.url}/v1/balance`, target.tokens.primary),
    (answer) => answer.status !== 200,
  );
  expect(expired.status).toBe(401);
  expect(expired.body.error.code).toBe("UNAUTHORIZED");
  expect(expired.headers.get("www-authenticate")).toBeNull();
  const { stdout } = await promisify(exec)(target.tokenCommand);
  const renewed = stdout.trim();
  expect(renewed).not.toBe(target.tokens.primary);
  expect((await call(`${target.url}/v1/balance`, renewed)).status).toBe(200);
  const { clientSecret } = target.credentials.primary;
  const wrongSecret = target.tokenCommand.replace(clientSecret, "wrong-secret");
  await expect(promisify(exec)(wrongSecret)).rejects.toThrow(/answered 401/);
});

test("above the rate limit the answer is 429 with Retry-After, and after waiting it a request passes", async () => {
  const kit = await provider({ requestsPerSecond: 3 });
  const { target } = kit;
  const burst = await Promise.all(
    Array.from({ length: 10 }, () => call(`${target.url}/v1/balance`, target.tokens.primary)),
  );
  const limited = burst.find((answer) => answer.status === 429);
  expect(limited?.body.error.code).toBe("RATE_LIMITED");
  const seconds = Number(limited?.headers.get("retry-after"));
  expect(seconds).toBeGreaterThan(0);
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  expect((await call(`${target.url}/v1/balance`, target.tokens.primary)).status).toBe(200);
});

test("a body over 64 KiB gets the connection reset, not an answer", async () => {
  const kit = await provider();
  const big = JSON.stringify(anOrder({ name: "x".repeat(70 * 1024) }));
  await expect(order(kit, big)).rejects.toMatchObject({ cause: { code: "ECONNRESET" } });
  expect((await order(kit, anOrder({ name: "x".repeat(60 * 1024) }))).status).toBe(200);
});

test("insufficient balance is HTTP 200 with a failed status and no id, and places nothing", async () => {
  const kit = await provider({ otherBalanceKes: 50 });
  const { target } = kit;
  const refused = await call(`${target.url}/v1/airtime`, target.tokens.other, {
    body: anOrder({ reference: "poor-000001", amount: 100 }),
  });
  expect(refused.status).toBe(200);
  expect(refused.body.success).toBe(false);
  expect(refused.body.data).toEqual({ reference: "poor-000001", statusCode: 104, message: "Insufficient funds" });
  expect(refused.body.error.code).toBe("INSUFFICIENT_FUNDS");
  expect((await lookup(kit, "poor-000001", target.tokens.other)).status).toBe(404);
  expect(await balance(kit, target.tokens.other)).toBe("50.00");
});

test("a Success reversed some time later is refunded, with a webhook for each", async () => {
  const kit = await provider({ failureRate: 0, reversalRate: 1 });
  const { receiver } = kit;
  const start = await balance(kit);
  await order(kit, anOrder({ reference: "rev-000001", amount: 500 }));
  const seen = new Set<string>();
  await until(
    async () => (await lookup(kit, "rev-000001")).body.data.status as string,
    (status) => seen.add(status).has("REVERSED"),
    5,
  );
  expect(await balance(kit)).toBe(start);
  await until(
    async () => receiver.deliveries.length,
    (count) => count >= 2,
  );
  const events = receiver.deliveries.map((delivery) => JSON.parse(delivery.body).event);
  expect(events).toEqual(["airtime.completed", "airtime.reversed"]);
});

test("a replay by header or body key, the account in either form, answers the same id; another payload 409", async () => {
  const kit = await provider({ failureRate: 0, reversalRate: 0 });
  const body = anOrder({ reference: "idem-000001" });
  const first = await order(kit, body, { "idempotency-key": "k-1" });
  const again = await order(kit, { ...body, account: "254712000101", idempotencyKey: "k-1" });
  expect(again.body.data.transactionId).toBe(first.body.data.transactionId);
  await finalOf(kit, "idem-000001");
  const latest = await order(kit, body, { "idempotency-key": "k-1" });
  expect(latest.body.data).toMatchObject({ transactionId: first.body.data.transactionId, statusCode: 100 });
  const changed = await order(kit, { ...body, amount: 20 }, { "idempotency-key": "k-1" });
  expect(changed.status).toBe(409);
  expect(changed.body).toMatchObject({ success: false, error: { code: "idempotency_payload_mismatch" } });
  const parallel = await Promise.all(
    [1, 2, 3].map(() => order(kit, anOrder({ reference: "idem-000002" }), { "idempotency-key": "k-2" })),
  );
  expect(new Set(parallel.map((answer) => answer.body.data.transactionId)).size).toBe(1);
});

test("input outside the domain is 422, a wrong method 404, a key of 255 passes and 256 does not", async () => {
  const kit = await provider();
  const { target } = kit;
  const invalid: Answer[] = await Promise.all(
    [
      { amount: 9 },
      { amount: 10.5 },
      { account: "+254712000101" },
      { service: "jtl" },
      { reference: "a/b" },
      { shortcode: "999999" },
    ].map((change) => order(kit, anOrder(change))),
  );
  expect(invalid.map((answer) => answer.status)).toEqual([422, 422, 422, 422, 422, 422]);
  expect(invalid.every((answer) => answer.body.error.code === "INVALID_REQUEST")).toBe(true);
  const garbage = await Promise.all(["{not json", "[]", "null", "5", ""].map((text) => order(kit, text)));
  expect(garbage.map((answer) => answer.status)).toEqual([422, 422, 422, 422, 422]);
  const text = await call(`${kit.target.url}/v1/airtime`, kit.target.tokens.primary, {
    body: JSON.stringify(anOrder()),
    headers: { "content-type": "text/plain" },
  });
  expect(text.status).toBe(422);
  expect((await call(`${target.url}/v1/balance`, target.tokens.primary, { method: "DELETE" })).status).toBe(404);
  expect((await order(kit, anOrder({ idempotencyKey: "k".repeat(255) }))).status).toBe(200);
  expect((await order(kit, anOrder({ idempotencyKey: "k".repeat(256) }))).status).toBe(422);
});

test("each customer sees only its own orders", async () => {
  const kit = await provider();
  const { target } = kit;
  await order(kit, anOrder({ reference: "mine-000001" }));
  const other = await lookup(kit, "mine-000001", target.tokens.other);
  expect(other.status).toBe(404);
  expect(other.body.error.code).toBe("NOT_FOUND");
});

test("one seed gives the same delays and outcomes, another seed others", async () => {
  const outcomes = async (seed: number) => {
    const kit = await provider({ seed, failureRate: 0.5, reversalRate: 0 });
    const references = Array.from({ length: 8 }, (_, index) => `seed-${seed}-${index}-x`);
    for (const reference of references) await order(kit, anOrder({ reference }));
    const finals = await Promise.all(references.map((reference) => finalOf(kit, reference)));
    return finals.map((answer) => answer.body.data.status as string).join(" ");
  };
  const [first, again, other] = [await outcomes(11), await outcomes(11), await outcomes(12)];
  expect(again).toBe(first);
  expect(other).not.toBe(first);
});
