/**
 * `sim.publicHandler` mounted in a user's own express app: the public API
 * answers as the simulator's own server does, journalled, and any other path
 * stays the app's.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { Simulator } from "../../src/index.ts";
import { bearer, DEMO_TOKEN, expectProblem, orderBody, send, startSimulator } from "../support/http.ts";

let sim: Simulator;
let server: Server;
let base: string;

beforeAll(async () => {
  sim = await startSimulator();
  const app = express();
  // An app-wide JSON parser ahead of the handler: the handler takes the body it parsed.
  app.use(express.json());
  app.get("/health", (_req, res) => {
    res.json({ ok: true });
  });
  app.use(sim.publicHandler);
  app.use("/sandbox", sim.publicHandler);
  server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await sim.close();
});

test("places an order and looks it up through the user's app", async () => {
  const body = orderBody({ amount: 120 });
  const placed = await send(base, "/v1/airtime", {
    headers: { ...bearer(DEMO_TOKEN), "idempotency-key": "mounted-1" },
    body,
  });
  expect(placed.status).toBe(200);
  expect(placed.body).toMatchObject({ reference: body.reference, status: 0 });
  const replay = await send(base, "/v1/airtime", {
    headers: { ...bearer(DEMO_TOKEN), "idempotency-key": "mounted-1" },
    body,
  });
  expect(replay.headers.get("idempotent-replayed")).toBe("true");
  expect(replay.body.id).toBe(placed.body.id);
  const lookup = await send(base, `/v1/airtime/${encodeURIComponent(String(body.reference))}`, {
    headers: bearer(DEMO_TOKEN),
  });
  expect(lookup.status).toBe(200);
  expect(lookup.body.amount).toBe(120);
});

test("answers under a mount path, and journals the URL as the client sent it", async () => {
  const reply = await send(base, "/sandbox/v1/balance", { headers: bearer(DEMO_TOKEN) });
  expect(reply.status).toBe(200);
  expect(reply.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  const entry = sim.journal.list().find((e) => e.requestId === reply.headers.get("x-request-id"));
  expect(entry).toMatchObject({ method: "GET", path: "/sandbox/v1/balance", status: 200, customerId: "demo" });
});

test("its problems are the simulator's: 401, 405 with Allow", async () => {
  expectProblem(await send(base, "/v1/balance"), 401, "missing_token");
  const wrongMethod = await send(base, "/v1/balance", { method: "DELETE", headers: bearer(DEMO_TOKEN) });
  expectProblem(wrongMethod, 405, "method_not_allowed");
  expect(wrongMethod.headers.get("allow")).toBe("GET, HEAD");
});

test("leaves every other path to the app: its own routes, and its own 404", async () => {
  expect((await send(base, "/health")).body).toEqual({ ok: true });
  const missing = await send(base, "/_sim/orders", { headers: bearer(sim.adminToken) });
  expect(missing.status).toBe(404);
  expect(missing.contentType).not.toMatch(/problem/);
});
