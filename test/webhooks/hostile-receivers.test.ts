/**
 * Receivers that stream without end, hang, reset the connection or answer
 * 410, each behind customer A, with customer B on the same host (one
 * node:http server, one path each): B's deliveries go out at their due
 * time and land while A's receiver is still misbehaving.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it, vi } from "vitest";
import { parseServeArgs } from "../../src/cli/serve.ts";
import { MAX_RESPONSE_BODY_BYTES } from "../../src/webhooks/post-webhook.ts";
import { admin, PENDING_MS, placeOrder, startSim, type WebhookSim } from "./support.ts";

type Behaviour = (req: IncomingMessage, res: ServerResponse) => void;

interface Host {
  readonly base: string;
  /** Requests that reached each path. */
  readonly hits: Map<string, number>;
  close(): Promise<void>;
}

const cleanup: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** One server for both customers: `/a` behaves as told, `/b` answers 200 at once. */
async function host(a: Behaviour): Promise<Host> {
  const hits = new Map<string, number>();
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    hits.set(req.url ?? "", (hits.get(req.url ?? "") ?? 0) + 1);
    req.resume();
    if (req.url === "/a") a(req, res);
    else res.writeHead(200).end("ok");
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const close = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  cleanup.push(close);
  return { base: `http://127.0.0.1:${port}`, hits, close };
}

/** A host whose `/a` holds every request until `answerAll()`, then answers 200 at once. */
async function holdingHost(): Promise<{ on: Host; answerAll(): void }> {
  const held: ServerResponse[] = [];
  let holding = true;
  const on = await host((_req, res) => {
    if (holding) held.push(res);
    else res.writeHead(200).end();
  });
  return {
    on,
    answerAll() {
      holding = false;
      for (const res of held.splice(0)) res.writeHead(200).end();
    },
  };
}

async function sim(options: Parameters<typeof startSim>[0]): Promise<WebhookSim> {
  const env = await startSim({ schedule: "0,5s,5m", ...options });
  cleanup.push(() => env.close());
  return env;
}

async function twoCustomers(env: WebhookSim, on: Host): Promise<void> {
  for (const id of ["a", "b"]) {
    const created = await env.sim.customers.createCustomer({
      id,
      token: `token-${id}-0123456789`,
      balance: 1_000_000,
      webhook: { url: `${on.base}/${id}` },
    });
    expect(created.kind).toBe("created");
  }
}

/** Places A's orders, then B's one order 300 ms of simulator time later, so B's attempt falls due while A's are out. */
async function ordersAThenB(env: WebhookSim, aOrders: number): Promise<number> {
  for (let i = 0; i < aOrders; i++) await placeOrder(env.url, "token-a-0123456789", `A-${i}`);
  await env.sim.clock.advance(300);
  await placeOrder(env.url, "token-b-0123456789", "B-1");
  return env.sim.clock.now() + PENDING_MS;
}

/** One order each, A's due 300 ms before B's, run through one advance; B checked on time. A's delivery and attempts. */
async function oneOrderEach(on: Host) {
  const env = await sim({ timeout: "120s" });
  await twoCustomers(env, on);
  const bDue = await ordersAThenB(env, 1);
  await env.sim.clock.advance(PENDING_MS);
  await expectBOnTime(env, bDue);
  const [a] = await attemptsOf(env, "a");
  return a;
}

/** B's one delivery, once it is recorded delivered: sent and delivered at exactly its due time. */
async function expectBOnTime(env: WebhookSim, dueAt: number): Promise<void> {
  const delivered = await vi.waitFor(
    async () => {
      const [found] = await env.dispatcher.deliveries.list({ customerId: "b", state: "delivered" });
      expect(found).toBeDefined();
      return found;
    },
    { timeout: 15_000 },
  );
  expect(delivered?.deliveredAt).toBe(dueAt);
  const attempts = await env.dispatcher.deliveries.attempts(delivered?.id ?? "");
  expect(attempts.map((attempt) => [attempt.sentAt, attempt.responseStatus])).toEqual([[dueAt, 200]]);
}

async function attemptsOf(env: WebhookSim, customerId: string) {
  const found = await env.dispatcher.deliveries.list({ customerId });
  return Promise.all(
    found.map(async (delivery) => ({ delivery, attempts: await env.dispatcher.deliveries.attempts(delivery.id) })),
  );
}

it("a receiver that answers 200 and streams without end: read up to the cap, recorded delivered, B on time", async () => {
  let written = 0;
  let clientHungUp = false;
  const on = await host((_req, res) => {
    res.writeHead(200, { "content-type": "application/octet-stream" });
    const chunk = Buffer.alloc(16 * 1024, "x");
    res.on("close", () => {
      clientHungUp = true;
    });
    const pump = () => {
      if (res.destroyed) return;
      written += chunk.length;
      if (res.write(chunk)) setImmediate(pump);
      else res.once("drain", pump);
    };
    pump();
  });
  // The timeout is longer than the test may take: the attempt ends by the body cap, not by the timeout.
  const a = await oneOrderEach(on);
  expect(a?.delivery.state).toBe("delivered");
  expect(a?.attempts).toHaveLength(1);
  expect(a?.attempts[0]).toMatchObject({ responseStatus: 200, error: null, outcome: "delivered" });
  // The sender hung up once it had read its fill; the receiver was still streaming.
  await vi.waitFor(() => expect(clientHungUp).toBe(true));
  expect(written).toBeGreaterThan(MAX_RESPONSE_BODY_BYTES);
});

it("a receiver that never answers: B's attempt is sent at its due time and lands while A's are still out", async () => {
  const { on, answerAll } = await holdingHost();
  // A has more attempts due than its endpoint may have in flight: B, on the same host, must not queue behind them.
  const env = await sim({ timeout: "120s", maxConcurrentPerEndpoint: 2 });
  await twoCustomers(env, on);
  const bDue = await ordersAThenB(env, 5);
  const advancing = env.sim.clock.advance(PENDING_MS);
  await expectBOnTime(env, bDue);
  // A's first two attempts are still out (none has finished, not even by its timeout), three wait behind them.
  await vi.waitFor(() => expect(on.hits.get("/a")).toBe(2));
  expect((await attemptsOf(env, "a")).map(({ attempts }) => attempts.length)).toEqual([0, 0, 0, 0, 0]);

  // Proven; answer the held requests rather than wait out the timeout.
  answerAll();
  await advancing;
  expect((await attemptsOf(env, "a")).map(({ delivery }) => delivery.state)).toEqual(Array(5).fill("delivered"));
});

it("a receiver that resets the connection: a failed attempt with a network error, retried; B on time", async () => {
  const on = await host((req) => req.socket.destroy());
  const a = await oneOrderEach(on);
  expect(a?.attempts).toHaveLength(1);
  expect(a?.attempts[0]).toMatchObject({ responseStatus: null, outcome: "failed" });
  expect(a?.attempts[0]?.error).toEqual(expect.any(String));
  expect(a?.attempts[0]?.error).not.toBe("timeout");
  expect(a?.delivery.state).toBe("pending");
  expect(a?.delivery.nextAttemptAt).toBe((a?.attempts[0]?.sentAt ?? 0) + 5_000);
});

it("410 Gone cancels the endpoint's queued attempts, visibly; B, on the same host, is delivered on time", async () => {
  const held: ServerResponse[] = [];
  // The first request is held until the others have queued behind it, then answered 410.
  const on = await host((_req, res) => held.push(res));
  const env = await sim({ timeout: "120s", maxConcurrentPerEndpoint: 1 });
  await twoCustomers(env, on);
  const bDue = await ordersAThenB(env, 6);
  const advancing = env.sim.clock.advance(PENDING_MS);
  await expectBOnTime(env, bDue);
  await vi.waitFor(() => expect(held).toHaveLength(1));
  held[0]?.writeHead(410).end();
  await advancing;

  // One request reached A: the five queued behind it were never sent.
  expect(on.hits.get("/a")).toBe(1);
  const a = await attemptsOf(env, "a");
  const gone = a.filter(({ attempts }) => attempts.length === 1);
  expect(gone).toHaveLength(1);
  expect(gone[0]?.attempts[0]).toMatchObject({ responseStatus: 410, outcome: "gone" });
  const cancelled = a.filter(({ attempts }) => attempts.length === 0);
  expect(cancelled).toHaveLength(5);
  for (const { delivery } of cancelled) {
    expect(delivery).toMatchObject({ state: "disabled", nextAttemptAt: null });
    expect(delivery.reason).toMatch(/cancelled while queued.*410/);
  }
  // The delivery log shows them as such.
  const listed = (await admin(env.url, "GET", "/deliveries?customer=a&state=disabled")).body.deliveries;
  expect(listed).toHaveLength(6);
  expect((await env.sim.customers.getCustomer("a"))?.webhook?.disabled).toBe(true);
});

it("a full endpoint queue sheds its oldest waiting attempt as a failed queue_overflow attempt; it is retried and delivered", async () => {
  const { on, answerAll } = await holdingHost();
  const env = await sim({ timeout: "120s", maxConcurrentPerEndpoint: 1, maxQueuedPerEndpoint: 2 });
  await twoCustomers(env, on);
  const bDue = await ordersAThenB(env, 5);
  const advancing = env.sim.clock.advance(PENDING_MS);
  await expectBOnTime(env, bDue);
  // One in flight, two queued, two shed: the shed ones are recorded at once, without a request.
  await vi.waitFor(async () => {
    const shed = (await attemptsOf(env, "a")).filter(({ attempts }) => attempts.length === 1);
    expect(shed).toHaveLength(2);
  });
  expect(on.hits.get("/a")).toBe(1);
  answerAll();
  await advancing;

  const a = await attemptsOf(env, "a");
  const overflowed = a.filter(({ attempts }) => attempts[0]?.error === "queue_overflow");
  expect(overflowed).toHaveLength(2);
  for (const { delivery, attempts } of overflowed) {
    expect(attempts[0]).toMatchObject({ responseStatus: null, outcome: "failed", latencyMs: 0 });
    expect(delivery.state).toBe("pending");
    expect(delivery.nextAttemptAt).toBe((attempts[0]?.sentAt ?? 0) + 5_000);
  }
  // The schedule goes on: five seconds later they are delivered like the others.
  await env.sim.clock.advance(5_000);
  expect((await attemptsOf(env, "a")).map(({ delivery }) => delivery.state)).toEqual(Array(5).fill("delivered"));
});

const WITH_CREDENTIALS = "http://user:secret@127.0.0.1:9/hooks";

it("a webhook URL with credentials is refused with a clear 400 on the admin API, and by createCustomer", async () => {
  const env = await sim({});
  const created = await admin(env.url, "POST", "/customers", { id: "creds", webhook: { url: WITH_CREDENTIALS } });
  expect(created.status).toBe(400);
  expect(JSON.stringify(created.body)).toMatch(/must not carry credentials/);
  expect(JSON.stringify(created.body)).toMatch(/webhook\/url/);
  expect(
    (await admin(env.url, "POST", "/customers", { id: "plain", webhook: { url: "http://127.0.0.1:9/h" } })).status,
  ).toBe(201);
  const patched = await admin(env.url, "PATCH", "/customers/plain", { webhook: { url: WITH_CREDENTIALS } });
  expect(patched.status).toBe(400);
  expect(JSON.stringify(patched.body)).toMatch(/must not carry credentials/);
  // Code that creates customers directly meets the same rule.
  const direct = await env.sim.customers.createCustomer({ id: "direct", webhook: { url: WITH_CREDENTIALS } });
  expect(direct).toMatchObject({ kind: "invalid", detail: expect.stringMatching(/must not carry credentials/) });
});

it("a webhook URL with credentials is refused by --webhook-url, its environment twin and the config file", async () => {
  const flag = await parseServeArgs(["--webhook-url", WITH_CREDENTIALS], {});
  expect(flag).toMatchObject({
    kind: "error",
    message: expect.stringMatching(/--webhook-url must not carry credentials/),
  });
  const env = await parseServeArgs([], { AIRTIME_SIM_WEBHOOK_URL: WITH_CREDENTIALS });
  expect(env).toMatchObject({
    kind: "error",
    message: expect.stringMatching(/AIRTIME_SIM_WEBHOOK_URL: --webhook-url must not carry credentials/),
  });
  const dir = mkdtempSync(join(tmpdir(), "webhook-url-"));
  const file = join(dir, "sim.yaml");
  writeFileSync(file, `customers:\n  - id: acme\n    webhook:\n      url: ${WITH_CREDENTIALS}\n`);
  const fromFile = await parseServeArgs(["--config", file], {});
  expect(fromFile).toMatchObject({
    kind: "error",
    message: expect.stringMatching(/webhook\.url.*must not carry credentials/s),
  });
  expect((await parseServeArgs(["--webhook-url", "http://127.0.0.1:9/hooks"], {})).kind).toBe("settings");
});
