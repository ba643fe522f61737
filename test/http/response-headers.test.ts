/**
 * Over a real socket, an answer's status and headers are written in one
 * step; what a client sees must be what the header-by-header path gives:
 * one `X-Request-Id` on every answer (public, problem, replay, admin), a
 * `Content-Length` and no chunked encoding.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import type { Simulator } from "../../src/index.ts";
import { admin, bearer, DEMO_TOKEN, expectProblem, orderBody, send, startSimulatorOnPort } from "../support/http.ts";

let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulatorOnPort();
});
afterAll(async () => {
  await sim.close();
});

const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function expectOneRequestId(headers: Headers): string {
  const id = headers.get("x-request-id");
  // A header set twice would come back joined with ", ".
  expect(id).toMatch(REQUEST_ID);
  return id as string;
}

test("a placed order's answer carries its request id, type and length, unchunked", async () => {
  const reply = await send(sim, "/v1/airtime", { headers: bearer(DEMO_TOKEN), body: orderBody() });
  expect(reply.status).toBe(200);
  const id = expectOneRequestId(reply.headers);
  expect(reply.headers.get("content-type")).toBe("application/json; charset=utf-8");
  expect(reply.headers.get("content-length")).toBe(String(Buffer.byteLength(reply.text)));
  expect(reply.headers.get("transfer-encoding")).toBeNull();
  expect(sim.journal.list().at(-1)).toMatchObject({ requestId: id, status: 200, method: "POST" });
});

test("a replay keeps Idempotent-Replayed next to the request id", async () => {
  const body = orderBody();
  const headers = { ...bearer(DEMO_TOKEN), "idempotency-key": "one-write-replay" };
  const first = await send(sim, "/v1/airtime", { headers, body });
  const replay = await send(sim, "/v1/airtime", { headers, body });
  expect(replay.headers.get("idempotent-replayed")).toBe("true");
  expect(expectOneRequestId(replay.headers)).not.toBe(expectOneRequestId(first.headers));
});

test("a problem keeps its own headers and names its request id as its instance", async () => {
  const reply = await send(sim, "/v1/balance");
  expectProblem(reply, 401, "missing_token");
  expect(reply.headers.get("www-authenticate")).toBe('Bearer realm="airtime"');
  expect(reply.body.instance).toBe(`urn:uuid:${expectOneRequestId(reply.headers)}`);
});

test("a HEAD answer has the headers of its GET and no body", async () => {
  const reply = await send(sim, "/v1/balance", { method: "HEAD", headers: bearer(DEMO_TOKEN) });
  expect(reply.status).toBe(200);
  expectOneRequestId(reply.headers);
  expect(Number(reply.headers.get("content-length"))).toBeGreaterThan(0);
  expect(reply.text).toBe("");
});

test("the admin API's answers carry a request id too", async () => {
  const reply = await admin(sim, "/orders");
  expect(reply.status).toBe(200);
  expectOneRequestId(reply.headers);
  const refused = await send(sim, "/_sim/orders");
  expect(refused.status).toBe(401);
  expectOneRequestId(refused.headers);
});
