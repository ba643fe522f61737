/**
 * The fault proxy really misbehaves over real HTTP: a dropped response was
 * committed by the target (the admin API shows the order) while the client
 * saw only a network error; a reset never reaches the target; latency delays.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type AdminClient, createAdminClient } from "../../src/harness/admin-client.ts";
import { type FaultProxy, startFaultProxy } from "../../src/harness/fault-proxy.ts";
import { REQUEST_ID_HEADER } from "../../src/harness/faults.ts";
import { createHttpClient, type HttpClient } from "../../src/harness/http-client.ts";
import { createSimulator, type Simulator } from "../../src/simulator/create-simulator.ts";

const TOKEN = "fault-proxy-test-token";
let sim: Simulator;
let proxy: FaultProxy;
let client: HttpClient;
let admin: AdminClient;

beforeAll(async () => {
  sim = await createSimulator({ clock: "virtual", seed: 3, demo: { token: TOKEN } });
  const url = await sim.listen(0, "127.0.0.1");
  proxy = await startFaultProxy({ target: url });
  client = createHttpClient(proxy.url);
  admin = createAdminClient(url, sim.adminToken);
});

afterAll(async () => {
  await proxy.close();
  await sim.close();
});

function order(reference: string) {
  return {
    method: "POST",
    path: "/v1/airtime",
    headers: {
      authorization: `Bearer ${TOKEN}`,
      "content-type": "application/json",
      "idempotency-key": `key-${reference}`,
      [REQUEST_ID_HEADER]: reference,
    },
    body: JSON.stringify({ account: "0712000101", amount: 25, currency: "KES", reference }),
  };
}

describe("the fault proxy", () => {
  test("drop_response: the target commits the order, the client sees only a network error", async () => {
    const outcome = await client.send({ ...order("dropped-1"), fault: { kind: "drop_response" } });
    expect(outcome.kind).toBe("network_error");

    const orders = await admin.listOrders({ customer: "demo", reference: "dropped-1" });
    expect(orders).toHaveLength(1);
    expect(orders[0]?.amount).toBe(25);
    const observed = proxy.observation("dropped-1");
    expect(observed?.forwarded).toBe(true);
    expect(observed?.upstream?.status).toBe(200);
    expect(JSON.parse(observed?.upstream?.text ?? "{}").id).toBe(orders[0]?.id);

    // The retry the lost response calls for answers the committed order.
    const retry = await client.send(order("dropped-1"));
    expect(retry.kind === "response" && retry.status).toBe(200);
    expect(retry.kind === "response" && (retry.json as { id: string }).id).toBe(orders[0]?.id);
  });

  test("reset_before: the client sees a network error and the target never sees the request", async () => {
    const outcome = await client.send({ ...order("reset-1"), fault: { kind: "reset_before" } });
    expect(outcome.kind).toBe("network_error");
    expect(await admin.listOrders({ customer: "demo", reference: "reset-1" })).toHaveLength(0);
    expect(proxy.observation("reset-1")?.forwarded).toBe(false);
  });

  test("latency: the answer arrives, after at least the delay", async () => {
    const started = performance.now();
    const outcome = await client.send({ ...order("slow-1"), fault: { kind: "latency", ms: 120 } });
    expect(performance.now() - started).toBeGreaterThanOrEqual(115);
    expect(outcome.kind === "response" && outcome.status).toBe(200);
  });

  test("the fault and request-id headers are stripped before forwarding; other headers and the body pass through", async () => {
    const echo = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        res.writeHead(201, { "content-type": "application/json", "x-echo": "yes" });
        res.end(JSON.stringify({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") }));
      });
    });
    await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
    const echoProxy = await startFaultProxy({ target: `http://127.0.0.1:${(echo.address() as AddressInfo).port}` });
    try {
      const outcome = await createHttpClient(echoProxy.url).send({
        method: "POST",
        path: "/anything?x=1",
        headers: { authorization: "Bearer t", [REQUEST_ID_HEADER]: "r-1" },
        body: "hello",
        fault: { kind: "latency", ms: 1 },
      });
      expect(outcome.kind === "response" && outcome.status).toBe(201);
      if (outcome.kind !== "response") return;
      expect(outcome.headers["x-echo"]).toBe("yes");
      const echoed = outcome.json as { headers: Record<string, string>; body: string };
      expect(echoed.body).toBe("hello");
      expect(echoed.headers.authorization).toBe("Bearer t");
      expect(echoed.headers["x-harness-fault"]).toBeUndefined();
      expect(echoed.headers[REQUEST_ID_HEADER]).toBeUndefined();
      expect(echoProxy.faulted().map((o) => o.requestId)).toEqual(["r-1"]);
    } finally {
      await echoProxy.close();
      await new Promise<void>((resolve) => echo.close(() => resolve()));
    }
  });
});
