/**
 * CORS, off by default: a browser app on a listed origin can preflight and
 * call the API and read `Idempotent-Replayed`; any other origin, and every
 * origin with CORS off, gets no CORS header and the 405 an OPTIONS always got.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import type { Simulator } from "../../src/index.ts";
import { bearer, DEMO_TOKEN, orderBody, send, startSimulatorOnPort as startSimulator } from "../support/http.ts";

const APP = "http://localhost:5173";
let sim: Simulator;
let off: Simulator;

beforeAll(async () => {
  [sim, off] = await Promise.all([startSimulator({ cors: [APP, "https://qa.example.com"] }), startSimulator()]);
});
afterAll(async () => {
  await Promise.all([sim.close(), off.close()]);
});

function preflight(url: string, origin: string) {
  return send(`${url}/v1/airtime`, {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": "POST",
      "access-control-request-headers": "authorization,content-type,idempotency-key",
    },
  });
}

test("a preflight from a listed origin is answered 204 with the methods and headers the API takes", async () => {
  const reply = await preflight(sim.url, APP);
  expect(reply.status).toBe(204);
  expect(reply.headers.get("access-control-allow-origin")).toBe(APP);
  expect(reply.headers.get("access-control-allow-methods")).toContain("POST");
  const allowed = (reply.headers.get("access-control-allow-headers") ?? "").toLowerCase().split(",");
  expect(allowed).toEqual(expect.arrayContaining(["authorization", "idempotency-key", "content-type"]));
  expect(reply.headers.get("vary")).toContain("Origin");
  expect(reply.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
});

test("a listed origin's order exposes Idempotent-Replayed, so the app can read a replay", async () => {
  const body = orderBody();
  const headers = { ...bearer(DEMO_TOKEN), origin: APP, "idempotency-key": `cors-${body.reference as string}` };
  await send(`${sim.url}/v1/airtime`, { body, headers });
  const replay = await send(`${sim.url}/v1/airtime`, { body, headers });
  expect(replay.status).toBe(200);
  expect(replay.headers.get("idempotent-replayed")).toBe("true");
  expect(replay.headers.get("access-control-allow-origin")).toBe(APP);
  expect(replay.headers.get("access-control-expose-headers")).toContain("Idempotent-Replayed");
});

test("an origin not listed gets no CORS header, and its OPTIONS the usual 405", async () => {
  const reply = await preflight(sim.url, "https://evil.example");
  expect(reply.status).toBe(405);
  expect([...reply.headers.keys()].filter((name) => name.startsWith("access-control-"))).toEqual([]);
  const get = await send(`${sim.url}/v1/balance`, {
    headers: { ...bearer(DEMO_TOKEN), origin: "https://evil.example" },
  });
  expect(get.status).toBe(200);
  expect(get.headers.get("access-control-allow-origin")).toBeNull();
});

test("with CORS off, a preflight gets 405 and no CORS header, as before", async () => {
  const reply = await preflight(off.url, APP);
  expect(reply.status).toBe(405);
  expect(reply.headers.get("access-control-allow-origin")).toBeNull();
});

test("* lets any origin in", async () => {
  const any = await startSimulator({ cors: ["*"] });
  try {
    const reply = await preflight(any.url, "https://anything.example");
    expect(reply.status).toBe(204);
    expect(reply.headers.get("access-control-allow-origin")).toBe("*");
  } finally {
    await any.close();
  }
});
