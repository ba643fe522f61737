/**
 * `sim.shutdown({ timeoutMs })` in process: webhook attempts in flight get
 * until the deadline, an attempt cut off is recorded as failed (`shutdown`)
 * rather than dropped, and the report counts what was left.
 */
import { createServer, type RequestListener, type Server } from "node:http";
import { afterEach, expect, test } from "vitest";
import { createSimulator, type Simulator } from "../../src/simulator/create-simulator.ts";
import { findWebhookPlugin } from "../../src/webhooks/webhook-plugin.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function receiver(answer: RequestListener): Promise<{ url: string; received: Promise<void> }> {
  const server: Server = createServer(answer);
  const received = new Promise<void>((resolve) => server.once("request", () => resolve()));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`, received };
}

/** A real-clock simulator whose demo order ends at once, its webhook going to `url`. */
async function simWithWebhookTo(url: string): Promise<Simulator> {
  const sim = await createSimulator({
    timing: "10ms",
    adminToken: "admin-token-shutdown-tests",
    demo: { token: "demo-token-shutdown", webhook: { url } },
    webhooks: { schedule: [0, 60_000], timeout: "60s", jitter: 0 },
  });
  cleanups.push(() => sim.close({ timeoutMs: 0 }));
  await placeDemoOrder(sim, "shutdown-1");
  return sim;
}

async function placeDemoOrder(sim: Simulator, reference: string): Promise<void> {
  const request = { account: "0712345678", amountCents: 1_000, currency: "KES", reference };
  const outcome = await sim.service.placeOrder({ customerId: "demo", request });
  expect(outcome.kind).toBe("placed");
}

async function attemptsOf(sim: Simulator) {
  const deliveries = findWebhookPlugin(sim.plugins)?.dispatcher.deliveries;
  if (deliveries === undefined) throw new Error("no webhook plugin");
  const [delivery] = await deliveries.list();
  if (delivery === undefined) throw new Error("no delivery");
  return { delivery, attempts: await deliveries.attempts(delivery.id) };
}

test("an attempt still out at the deadline is recorded as failed with the error `shutdown`", async () => {
  const hanging = await receiver(() => undefined);
  const sim = await simWithWebhookTo(hanging.url);
  await hanging.received;
  const report = await sim.shutdown({ timeoutMs: 200 });
  expect(report).toEqual({
    requestsCutOff: 0,
    pendingOrders: 0,
    left: { "undelivered webhooks": 1, "webhook attempts cut off": 1 },
  });
  const { delivery, attempts } = await attemptsOf(sim);
  expect(attempts).toHaveLength(1);
  expect(attempts[0]).toMatchObject({ outcome: "failed", error: "shutdown", responseStatus: null });
  // Not dropped: the delivery keeps its next attempt for a later run.
  expect(delivery.state).toBe("pending");
});

test("an attempt that answers before the deadline finishes and is recorded as delivered", async () => {
  const slow = await receiver((_req, res) => {
    setTimeout(() => res.writeHead(204).end(), 300);
  });
  const sim = await simWithWebhookTo(slow.url);
  await slow.received;
  const report = await sim.shutdown({ timeoutMs: 20_000 });
  expect(report.left).toEqual({ "undelivered webhooks": 0, "webhook attempts cut off": 0 });
  const { delivery, attempts } = await attemptsOf(sim);
  expect(delivery.state).toBe("delivered");
  expect(attempts[0]).toMatchObject({ outcome: "delivered", responseStatus: 204 });
});

test("a second shutdown() returns the first one's report; pending orders are counted", async () => {
  const sim = await createSimulator({ clock: "virtual", adminToken: "admin-token-shutdown-tests" });
  await placeDemoOrder(sim, "pending-1");
  const first = sim.shutdown({ timeoutMs: 1_000 });
  expect(sim.shutdown()).toBe(first);
  expect((await first).pendingOrders).toBe(1);
  await expect(createSimulator().then((other) => other.shutdown({ timeoutMs: -1 }))).rejects.toThrow(RangeError);
});

test("an attempt whose endpoint read outlasts the start of closing is handed back, not cut off", async () => {
  const listening = await receiver((_req, res) => res.writeHead(204).end());
  const sim = await createSimulator({
    timing: "200ms",
    demo: { token: "demo-token-shutdown", webhook: { url: listening.url } },
    webhooks: { schedule: [0, 60_000], timeout: "60s", jitter: 0 },
  });
  cleanups.push(() => sim.close({ timeoutMs: 0 }));
  await placeDemoOrder(sim, "shutdown-race");
  // The attempt's read of the endpoint is held until closing has begun.
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  let reached = () => {};
  const reading = new Promise<void>((resolve) => (reached = resolve));
  const getCustomer = sim.store.getCustomer.bind(sim.store);
  const deliveries = findWebhookPlugin(sim.plugins)?.dispatcher.deliveries;
  let attemptReads = 0;
  (sim.store as { getCustomer: typeof getCustomer }).getCustomer = async (id) => {
    // Reads before the delivery exists are the announcement's. Of the attempt's two, the second, made
    // in its endpoint's queue just before posting, is held.
    if ((await deliveries?.list())?.length !== 1 || ++attemptReads < 2) return getCustomer(id);
    reached();
    await held;
    return getCustomer(id);
  };
  await reading;
  const closing = sim.shutdown();
  setImmediate(release);
  const report = await closing;
  const { attempts } = await attemptsOf(sim);
  // Before, this attempt was posted on an aborted signal: a `shutdown` attempt that the report did not count.
  expect(attempts.filter((attempt) => attempt.error === "shutdown")).toHaveLength(
    report.left["webhook attempts cut off"] ?? 0,
  );
  expect(attempts).toEqual([]);
});
