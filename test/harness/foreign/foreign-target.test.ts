/**
 * The foreign provider is what it claims: a correct deployment of the
 * interface, shaped differently from our spec in every open dimension (the
 * table is at the top of foreign-target.ts), and its planted defects really
 * misbehave. Everything goes over raw HTTP, as the harness will see it.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { exec } from "node:child_process";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import { afterEach, expect, test } from "vitest";
import { parse } from "yaml";
import { FOREIGN_DEFECTS } from "./defects.ts";
import { anOrder, call, startReceiver, until, type Answer, type Receiver } from "./foreign-client.ts";
import { startForeignTarget, type ForeignTarget, type ForeignTargetOptions } from "./foreign-target.ts";
import { fetchToken } from "./print-token.ts";

const SECRET = "foreign-webhook-secret";
const FINALS = ["SUCCESS", "FAILED", "TIMEOUT", "REVERSED"];
const running: { close(): Promise<void> }[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((item) => item.close()));
});

async function provider(options: ForeignTargetOptions = {}): Promise<{ target: ForeignTarget; receiver: Receiver }> {
  const receiver = await startReceiver();
  const target = await startForeignTarget({
    finalDelayMs: { min: 10, max: 40 },
    reversalDelayMs: { min: 20, max: 60 },
    webhookRetryMs: [20, 50],
    webhook: { url: receiver.url, secret: SECRET },
    ...options,
  });
  running.push(target, receiver);
  return { target, receiver };
}

const lookup = (target: ForeignTarget, reference: string, token = target.tokens.primary) =>
  call(`${target.url}/v1/airtime/${encodeURIComponent(reference)}`, token);
const balance = async (target: ForeignTarget, token = target.tokens.primary) =>
  (await call(`${target.url}/v1/balance`, token)).body.data.available as string;
const order = (target: ForeignTarget, body: unknown, headers: Record<string, string> = {}) =>
  call(`${target.url}/v1/airtime`, target.tokens.primary, { body, headers });
const finalOf = (target: ForeignTarget, reference: string) =>
  until(
    () => lookup(target, reference),
    (answer) => FINALS.includes(answer.body.data.status),
  );

/** RFC 6901, enough for the profile's pointers. */
function at(document: unknown, pointer: string): unknown {
  return pointer
    .split("/")
    .slice(1)
    .map((token) => token.replaceAll("~1", "/").replaceAll("~0", "~"))
    .reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], document);
}

test("orders, lookups and balances come in an envelope with money as decimal strings", async () => {
  const { target } = await provider({ failureRate: 0, reversalRate: 0 });
  const placed = await order(target, anOrder({ reference: "env-000001", amount: 150 }));
  expect(placed.status).toBe(200);
  expect(placed.headers.get("idempotent-replayed")).toBeNull();
  expect(placed.body).toEqual({
    success: true,
    data: { transactionId: expect.stringMatching(/^TX/), reference: "env-000001", statusCode: 0, message: "Pending" },
  });
  const found = await finalOf(target, "env-000001");
  expect(found.body.success).toBe(true);
  expect(found.body.data).toMatchObject({ transactionId: placed.body.data.transactionId, ref: "env-000001" });
  expect(found.body.data).toMatchObject({ status: "SUCCESS", amount: "150.00", msisdn: "254712000101" });
  expect(await balance(target)).toBe("999850.00");
});

test("statuses are words in the lookup and the webhook, and the provider's own numbers in a replay", async () => {
  const { target, receiver } = await provider({ failureRate: 0.5, reversalRate: 0.5, seed: 7 });
  const references = Array.from({ length: 12 }, (_, index) => `word-${String(index).padStart(4, "0")}`);
  for (const reference of references) await order(target, anOrder({ reference, idempotencyKey: `key-${reference}` }));
  const finals = await Promise.all(references.map((reference) => finalOf(target, reference)));
  const words = new Set(finals.map((answer) => answer.body.data.status as string));
  expect([...words].every((word) => FINALS.includes(word))).toBe(true);
  expect(words.has("SUCCESS") || words.has("REVERSED")).toBe(true);
  expect(words.has("FAILED") || words.has("TIMEOUT")).toBe(true);
  const replay = await order(target, anOrder({ reference: references[0], idempotencyKey: `key-${references[0]}` }));
  expect([100, 101, 102, 103]).toContain(replay.body.data.statusCode);
  await until(
    async () => receiver.deliveries.length,
    (count) => count >= references.length,
  );
  const events = receiver.deliveries.map((delivery) => JSON.parse(delivery.body));
  expect(events.every((event) => FINALS.includes(event.data.status))).toBe(true);
});

test("a webhook is signed with HMAC-SHA256 hex over timestamp.body, under one delivery id across retries", async () => {
  const { target, receiver } = await provider({ failureRate: 0, reversalRate: 0 });
  receiver.refuse(1);
  await order(target, anOrder({ reference: "hook-000001" }));
  await until(
    async () => receiver.deliveries.length,
    (count) => count >= 2,
  );
  const [refused, accepted] = receiver.deliveries;
  expect(refused?.headers["x-delivery-id"]).toBe(accepted?.headers["x-delivery-id"]);
  for (const delivery of [refused, accepted]) {
    const timestamp = String(delivery?.headers["x-timestamp"]);
    const expected = createHmac("sha256", SECRET).update(`${timestamp}.${delivery?.body}`).digest("hex");
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
  const { target, receiver } = await provider({ failureRate: 0, reversalRate: 0 });
  const body = anOrder({ reference: "prof-000001", idempotencyKey: "prof-key" });
  const answers: Record<string, unknown> = {
    order: (await order(target, body)).body,
    lookup: (await finalOf(target, "prof-000001")).body,
    balance: (await call(`${target.url}/v1/balance`, target.tokens.primary)).body,
    error: (await order(target, { ...body, amount: 20 })).body,
  };
  await until(
    async () => receiver.deliveries.length,
    (count) => count >= 1,
  );
  answers.webhook = JSON.parse(receiver.deliveries[0]?.body ?? "{}");
  for (const [kind, pointers] of Object.entries(profile.bodies as Record<string, Record<string, string>>)) {
    for (const [field, pointer] of Object.entries(pointers)) {
      expect(at(answers[kind], pointer), `${kind}.${field} at ${pointer}`).toBeDefined();
    }
  }
  expect(at(answers.error, profile.bodies.error.code)).toBe("idempotency_payload_mismatch");
  const words = (profile.statuses.table as { word: string }[]).map((row) => row.word);
  expect(words).toContain(at(answers.lookup, profile.bodies.lookup.status));
  expect(profile.webhooks.event.values).toContain(at(answers.webhook, profile.webhooks.event.pointer));
});

test("a token expires; print-token fetches a new one that works", async () => {
  const { target } = await provider({ tokenLifetimeMs: 300 });
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
  const { clientId } = target.credentials.primary;
  await expect(fetchToken(target.url, clientId, "wrong-secret")).rejects.toThrow(/401/);
});

test("above the rate limit the answer is 429 with Retry-After, and after waiting it a request passes", async () => {
  const { target } = await provider({ requestsPerSecond: 3 });
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
  const { target } = await provider();
  const big = JSON.stringify(anOrder({ name: "x".repeat(70 * 1024) }));
  await expect(order(target, big)).rejects.toMatchObject({ cause: { code: "ECONNRESET" } });
  expect((await order(target, anOrder({ name: "x".repeat(60 * 1024) }))).status).toBe(200);
});

test("insufficient balance is HTTP 200 with a failed status and no id, and places nothing", async () => {
  const { target } = await provider({ otherBalanceKes: 50 });
  const refused = await call(`${target.url}/v1/airtime`, target.tokens.other, {
    body: anOrder({ reference: "poor-000001", amount: 100 }),
  });
  expect(refused.status).toBe(200);
  expect(refused.body.success).toBe(false);
  expect(refused.body.data).toEqual({ reference: "poor-000001", statusCode: 104, message: "Insufficient funds" });
  expect(refused.body.error.code).toBe("INSUFFICIENT_FUNDS");
  expect((await lookup(target, "poor-000001", target.tokens.other)).status).toBe(404);
  expect(await balance(target, target.tokens.other)).toBe("50.00");
});

test("a Success reversed some time later is refunded, with a webhook for each", async () => {
  const { target, receiver } = await provider({ failureRate: 0, reversalRate: 1 });
  const start = await balance(target);
  await order(target, anOrder({ reference: "rev-000001", amount: 500 }));
  const seen = new Set<string>();
  await until(
    async () => (await lookup(target, "rev-000001")).body.data.status as string,
    (status) => seen.add(status).has("REVERSED"),
    5,
  );
  expect(await balance(target)).toBe(start);
  await until(
    async () => receiver.deliveries.length,
    (count) => count >= 2,
  );
  const events = receiver.deliveries.map((delivery) => JSON.parse(delivery.body).event);
  expect(events).toEqual(["airtime.completed", "airtime.reversed"]);
});

test("a replay with the same key in header or body answers the same id; another payload gets 409", async () => {
  const { target } = await provider({ failureRate: 0, reversalRate: 0 });
  const body = anOrder({ reference: "idem-000001" });
  const first = await order(target, body, { "idempotency-key": "k-1" });
  const again = await order(target, { ...body, idempotencyKey: "k-1" });
  expect(again.body.data.transactionId).toBe(first.body.data.transactionId);
  await finalOf(target, "idem-000001");
  const latest = await order(target, body, { "idempotency-key": "k-1" });
  expect(latest.body.data).toMatchObject({ transactionId: first.body.data.transactionId, statusCode: 100 });
  const changed = await order(target, { ...body, amount: 20 }, { "idempotency-key": "k-1" });
  expect(changed.status).toBe(409);
  expect(changed.body).toMatchObject({ success: false, error: { code: "idempotency_payload_mismatch" } });
  const parallel = await Promise.all(
    [1, 2, 3].map(() => order(target, anOrder({ reference: "idem-000002" }), { "idempotency-key": "k-2" })),
  );
  expect(new Set(parallel.map((answer) => answer.body.data.transactionId)).size).toBe(1);
});

test("input outside the domain is 422, a wrong method 404, a key of 255 passes and 256 does not", async () => {
  const { target } = await provider();
  const invalid: Answer[] = await Promise.all(
    [{ amount: 9 }, { amount: 10.5 }, { account: "+254712000101" }, { service: "jtl" }, { reference: "a/b" }].map(
      (change) => order(target, anOrder(change)),
    ),
  );
  expect(invalid.map((answer) => answer.status)).toEqual([422, 422, 422, 422, 422]);
  expect(invalid.every((answer) => answer.body.error.code === "INVALID_REQUEST")).toBe(true);
  expect((await order(target, "{not json")).status).toBe(422);
  expect((await call(`${target.url}/v1/balance`, target.tokens.primary, { method: "DELETE" })).status).toBe(404);
  expect((await order(target, anOrder({ idempotencyKey: "k".repeat(255) }))).status).toBe(200);
  expect((await order(target, anOrder({ idempotencyKey: "k".repeat(256) }))).status).toBe(422);
});

test("each customer sees only its own orders", async () => {
  const { target } = await provider();
  await order(target, anOrder({ reference: "mine-000001" }));
  const other = await lookup(target, "mine-000001", target.tokens.other);
  expect(other.status).toBe(404);
  expect(other.body.error.code).toBe("NOT_FOUND");
});

test("the defect catalogue names at least 15 distinct defects, each with a stated rule and a check", () => {
  expect(new Set(FOREIGN_DEFECTS.map((entry) => entry.name)).size).toBe(FOREIGN_DEFECTS.length);
  expect(FOREIGN_DEFECTS.length).toBeGreaterThanOrEqual(15);
});

test("planted: a replay answers a new id", async () => {
  const { target } = await provider({ defect: "replay_new_id" });
  const body = anOrder({ idempotencyKey: "replay-new-id" });
  const [first, again] = [await order(target, body), await order(target, body)];
  expect(again.body.data.transactionId).not.toBe(first.body.data.transactionId);
});

test("planted: another customer's order is found by its reference", async () => {
  const { target } = await provider({ defect: "cross_customer_lookup" });
  await order(target, anOrder({ reference: "leak-000001" }));
  expect((await lookup(target, "leak-000001", target.tokens.other)).status).toBe(200);
});

test("planted: a request without a token is served", async () => {
  const { target } = await provider({ defect: "no_token_accepted" });
  expect((await call(`${target.url}/v1/balance`, undefined)).status).toBe(200);
});

test("planted: an amount that is not a number gets a 500", async () => {
  const { target } = await provider({ defect: "server_error_on_bad_amount" });
  expect((await order(target, anOrder({ amount: "150" }))).status).toBe(500);
});

test("planted: a failure keeps its debit", async () => {
  const { target } = await provider({ defect: "failure_not_refunded", failureRate: 1 });
  await order(target, anOrder({ reference: "lost-000001", amount: 300 }));
  expect((await finalOf(target, "lost-000001")).body.data.status).toMatch(/^(FAILED|TIMEOUT)$/);
  expect(await balance(target)).toBe("999700.00");
});

test("planted: parallel identical requests place several orders", async () => {
  const { target } = await provider({ defect: "concurrent_duplicates" });
  const body = anOrder({ idempotencyKey: "racy-key" });
  const answers = await Promise.all([order(target, body), order(target, body)]);
  expect(new Set(answers.map((answer) => answer.body.data.transactionId)).size).toBe(2);
});
