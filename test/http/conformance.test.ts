/**
 * Conformance judged by an independent validator: simulator traffic covering
 * every status code the public API produces goes through
 * `prism proxy spec/openapi.yaml <simulator> --errors`, which answers 422 (or
 * adds `sl-violations`) whenever a request or a response breaks the spec.
 */
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ResolvedEffects, Simulator } from "../../src/index.ts";
import type { PrismProcess } from "../../src/harness/prism.ts";
import { PUBLIC_SPEC, prismAvailable, startPrism } from "../support/processes.ts";
import { DEMO_TOKEN, startSimulator } from "./support.ts";

const INJECTED: Record<string, ResolvedEffects> = {
  "inj429-": { fired: ["t"], beforeCommit: { kind: "error", status: 429, retryAfterSeconds: 3 } },
  "inj500-": { fired: ["t"], beforeCommit: { kind: "error", status: 500 } },
  "inj502-": { fired: ["t"], afterCommit: { kind: "error", status: 502 } },
  "inj503-": { fired: ["t"], beforeCommit: { kind: "error", status: 503, retryAfterSeconds: 1 } },
};

let sim: Simulator;
let strict: PrismProcess;
/** Request validation off: lets deliberately invalid requests through so their responses are judged. */
let lenient: PrismProcess;
/** Prism in front of a deliberately wrong upstream, to show the validator does flag violations. */
let watchdog: PrismProcess;
let wrongUpstream: Server;

beforeAll(async () => {
  if (!prismAvailable()) throw new Error(`missing ${PUBLIC_SPEC} or the prism binary`);
  sim = await startSimulator({
    tokenTtlSeconds: 120,
    customers: [
      {
        id: "poor",
        token: "poor-token-0001",
        apiKey: "poor-api-key-1",
        balance: 10,
        wallets: [{ shortcode: "600100", balance: 500 }],
      },
    ],
    plugins: [
      () => ({
        name: "injector",
        scenarios: {
          async evaluate(facts) {
            const prefix = Object.keys(INJECTED).find((p) => facts.reference.startsWith(p));
            return prefix === undefined ? { fired: [] } : (INJECTED[prefix] as ResolvedEffects);
          },
        },
      }),
    ],
  });
  // Answers a send-airtime order with a numeric id and no message: two violations of the spec.
  wrongUpstream = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" }).end('{"id":1,"reference":"x","status":0}');
  });
  await new Promise<void>((done) => wrongUpstream.listen(0, "127.0.0.1", done));
  const address = wrongUpstream.address();
  const wrongUrl = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
  [strict, lenient, watchdog] = await Promise.all([
    startPrism(["proxy", PUBLIC_SPEC, sim.url, "--errors"]),
    startPrism(["proxy", PUBLIC_SPEC, sim.url, "--errors", "--validate-request=false"]),
    startPrism(["proxy", PUBLIC_SPEC, wrongUrl, "--errors"]),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([strict?.close(), lenient?.close(), watchdog?.close()]);
  await new Promise((done) => wrongUpstream?.close(done));
  await sim?.close();
});

interface Call {
  readonly method?: string;
  readonly path: string;
  readonly token?: string | null;
  readonly headers?: Record<string, string>;
  readonly body?: unknown;
  readonly raw?: string;
}

const seen = new Set<number>();

async function through(prism: PrismProcess, call: Call): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = { ...call.headers };
  const token = call.token === undefined ? DEMO_TOKEN : call.token;
  if (token !== null) headers.authorization ??= `Bearer ${token}`;
  let body: string | undefined = call.raw;
  if (call.body !== undefined) body = JSON.stringify(call.body);
  if (body !== undefined) headers["content-type"] ??= "application/json";
  const res = await fetch(`${prism.url}${call.path}`, {
    method: call.method ?? (body === undefined ? "GET" : "POST"),
    headers,
    body: body ?? null,
  });
  const text = await res.text();
  const violations = res.headers.get("sl-violations");
  if (violations !== null || res.status === 422) {
    throw new Error(
      `prism reports violations for ${call.method ?? "GET"} ${call.path} (${res.status}): ${violations ?? text}`,
    );
  }
  seen.add(res.status);
  return { status: res.status, body: text === "" ? undefined : JSON.parse(text) };
}

const order = (reference: string, extra: Record<string, unknown> = {}) => ({
  account: "0712345678",
  amount: 50,
  currency: "KES",
  reference,
  ...extra,
});

test("the validator flags a non-conforming response (the check can fail)", async () => {
  await expect(through(watchdog, { path: "/v1/airtime", body: order("wrong-1") })).rejects.toThrow(/violations/);
});

describe("spec-valid requests through prism proxy --errors", () => {
  test("200: place, replay, look up pending and final, balance, token", async () => {
    const placed = await through(strict, {
      path: "/v1/airtime",
      headers: { "idempotency-key": "conf-1" },
      body: order("conf-1"),
    });
    expect(placed.status).toBe(200);
    const replay = await through(strict, {
      path: "/v1/airtime",
      headers: { "idempotency-key": "conf-1" },
      body: order("conf-1"),
    });
    expect(replay.status).toBe(200);
    expect((await through(strict, { path: "/v1/airtime/conf-1" })).status).toBe(200);
    await sim.clock.advance(2_000);
    expect((await through(strict, { path: "/v1/airtime/conf-1" })).body).toMatchObject({ status: 20 });
    const shortcode = await through(strict, {
      path: "/v1/airtime",
      token: "poor-token-0001",
      body: order("conf-sc", { shortcode: "600100", service: "safaricom", idempotencyKey: "conf-sc" }),
    });
    expect(shortcode.status).toBe(200);
    await sim.clock.advance(2_000);
    expect((await through(strict, { path: "/v1/airtime/conf-sc", token: "poor-token-0001" })).status).toBe(200);
    expect((await through(strict, { path: "/v1/balance" })).status).toBe(200);
    expect((await through(strict, { path: "/v1/balance?shortcode=600100", token: "poor-token-0001" })).status).toBe(
      200,
    );
    const basic = `Basic ${Buffer.from("poor:poor-api-key-1").toString("base64")}`;
    const token = await through(strict, {
      method: "POST",
      path: "/v1/auth/token",
      token: null,
      headers: { authorization: basic },
    });
    expect(token.status).toBe(200);
  });

  test("a reversed order and a failed one look up conformantly", async () => {
    const placed = await through(strict, { path: "/v1/airtime", body: order("conf-rev") });
    const id = (placed.body as { id: string }).id;
    const admin = { authorization: `Bearer ${sim.adminToken}`, "content-type": "application/json" };
    await fetch(`${sim.url}/_sim/orders/${id}/transition`, {
      method: "POST",
      headers: admin,
      body: '{"action":"succeed"}',
    });
    await fetch(`${sim.url}/_sim/orders/${id}/transition`, {
      method: "POST",
      headers: admin,
      body: '{"action":"reverse"}',
    });
    expect((await through(strict, { path: "/v1/airtime/conf-rev" })).body).toMatchObject({ status: 8 });
  });

  test("400: key conflict, undetectable service, unknown shortcode (order and balance)", async () => {
    const conflict = await through(strict, {
      path: "/v1/airtime",
      headers: { "idempotency-key": "conf-a" },
      body: order("conf-2", { idempotencyKey: "conf-b" }),
    });
    expect(conflict.status).toBe(400);
    expect(
      (await through(strict, { path: "/v1/airtime", body: order("conf-3", { account: "0760123456" }) })).status,
    ).toBe(400);
    expect((await through(strict, { path: "/v1/airtime", body: order("conf-4", { shortcode: "1234" }) })).status).toBe(
      400,
    );
    expect((await through(strict, { path: "/v1/balance?shortcode=1234" })).status).toBe(400);
  });

  test("401: missing and invalid tokens, invalid client", async () => {
    expect((await through(strict, { path: "/v1/balance", token: null })).status).toBe(401);
    expect((await through(strict, { path: "/v1/balance", token: "wrong-token" })).status).toBe(401);
    expect((await through(strict, { path: "/v1/airtime/conf-1", token: "wrong-token" })).status).toBe(401);
    expect((await through(strict, { path: "/v1/airtime", token: null, body: order("conf-5") })).status).toBe(401);
    const basic = `Basic ${Buffer.from("poor:wrong-key").toString("base64")}`;
    expect(
      (
        await through(strict, {
          method: "POST",
          path: "/v1/auth/token",
          token: null,
          headers: { authorization: basic },
        })
      ).status,
    ).toBe(401);
  });

  test("402, 404, 409", async () => {
    expect(
      (await through(strict, { path: "/v1/airtime", token: "poor-token-0001", body: order("conf-6") })).status,
    ).toBe(402);
    expect((await through(strict, { path: "/v1/airtime/never-placed" })).status).toBe(404);
    await through(strict, { path: "/v1/airtime", headers: { "idempotency-key": "conf-7" }, body: order("conf-7") });
    const mismatch = await through(strict, {
      path: "/v1/airtime",
      headers: { "idempotency-key": "conf-7" },
      body: order("conf-7", { amount: 60 }),
    });
    expect(mismatch.status).toBe(409);
    expect((await through(strict, { path: "/v1/airtime", body: order("conf-7") })).status).toBe(409);
  });

  test("429, 500, 502, 503 injected by a scenario", async () => {
    for (const [prefix, status] of [
      ["inj429-", 429],
      ["inj500-", 500],
      ["inj502-", 502],
      ["inj503-", 503],
    ] as const) {
      expect((await through(strict, { path: "/v1/airtime", body: order(`${prefix}1`) })).status).toBe(status);
    }
  });
});

describe("spec-invalid requests (request validation off): the responses still conform", () => {
  test("400 validation_failed, malformed_json and invalid_idempotency_key; 413; 415", async () => {
    expect((await through(lenient, { path: "/v1/airtime", body: { amount: "ten" } })).status).toBe(400);
    expect((await through(lenient, { path: "/v1/airtime", raw: "{" })).status).toBe(400);
    expect(
      (await through(lenient, { path: "/v1/airtime", headers: { "idempotency-key": "a b" }, body: order("conf-8") }))
        .status,
    ).toBe(400);
    expect(
      (await through(lenient, { path: "/v1/airtime", body: order("conf-9", { name: "x".repeat(70_000) }) })).status,
    ).toBe(413);
    expect(
      (await through(lenient, { path: "/v1/airtime", headers: { "content-type": "text/plain" }, raw: "hi" })).status,
    ).toBe(415);
  });

  test("every status code the public API produces was judged", () => {
    for (const status of [200, 400, 401, 402, 404, 409, 413, 415, 429, 500, 502, 503]) expect(seen).toContain(status);
  });
});
