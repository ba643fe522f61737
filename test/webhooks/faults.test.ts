/**
 * Every WebhookFaults member, end to end: a test scenario engine attaches
 * the fault to orders by reference prefix, the simulator delivers to a real
 * inbox.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { WebhookFaults } from "../../src/domain/faults.ts";
import type { OutcomePlan } from "../../src/domain/model.ts";
import type { SimulatorPluginFactory } from "../../src/domain/plugin-port.ts";
import type { AdminDelivery } from "../../src/webhooks/admin-schemas.ts";
import {
  addCustomer,
  admin,
  PENDING_MS,
  placeOrder,
  startSim,
  TEST_SCHEDULE,
  type TestCustomer,
  type WebhookSim,
} from "./support.ts";

const RULES: Record<string, { webhookFaults?: WebhookFaults; plan?: OutcomePlan }> = {
  DELAY: { webhookFaults: { delayMs: 5000 } },
  DUP: { webhookFaults: { duplicates: 2 } },
  STALE: {
    webhookFaults: { staleAfterFinal: true },
    plan: {
      steps: [
        { afterMs: 400, status: 3 },
        { afterMs: 600, status: 20 },
      ],
    },
  },
  BADSIG: { webhookFaults: { badSignature: true } },
  DROP: { webhookFaults: { drop: true } },
  FIRST: { webhookFaults: { beforeResponse: true }, plan: { steps: [{ afterMs: 0, status: 20 }] } },
  PATH: {
    plan: {
      steps: [
        { afterMs: 300, status: 3 },
        { afterMs: 300, status: 31 },
        { afterMs: 400, status: 20 },
      ],
    },
  },
};

/** A scenario engine for tests: the reference's prefix picks the rule. */
const faultsByReference: SimulatorPluginFactory = () => ({
  name: "test-faults",
  scenarios: {
    async evaluate(facts) {
      const prefix = facts.reference.split("-")[0] ?? "";
      const rule = RULES[prefix];
      return rule === undefined ? { fired: [] } : { fired: [`test/${prefix}`], ...rule };
    },
  },
});

let env: WebhookSim;
let acme: TestCustomer;

beforeAll(async () => {
  env = await startSim({}, { plugins: [faultsByReference] });
  acme = await addCustomer(env.sim, "acme");
});

afterAll(async () => {
  await env?.close();
  await acme?.inbox.close();
});

const requestsFor = (reference: string) =>
  acme.inbox.requests().filter((request) => {
    const match = acme.inbox.deliveries().find((d) => d.webhookId === request.webhookId);
    return match?.webhook?.reference === reference;
  });

async function deliveriesOf(reference: string) {
  return (await admin(env.url, "GET", `/deliveries?reference=${reference}`)).body.deliveries as AdminDelivery[];
}

it("delayMs: the first attempt waits that much longer on the simulator clock", async () => {
  await placeOrder(env.url, acme.token, "DELAY-1");
  await env.sim.clock.advance(PENDING_MS);
  const finalAt = env.sim.clock.now();
  await env.sim.clock.advance(4999);
  expect(acme.inbox.deliveries().some((d) => d.webhook?.reference === "DELAY-1")).toBe(false);
  await env.sim.clock.advance(1);
  await acme.inbox.waitFor("DELAY-1", { timeoutMs: 500 });
  const [delivery] = await deliveriesOf("DELAY-1");
  const detail = await admin(env.url, "GET", `/deliveries/${delivery?.id}`);
  expect(Date.parse(detail.body.attempts[0].sentAt)).toBe(finalAt + 5000);
});

it("duplicates: the same message (same webhook-id) arrives n extra times; the inbox dedupes and counts them", async () => {
  const before = acme.inbox.duplicates();
  await placeOrder(env.url, acme.token, "DUP-1");
  await env.sim.clock.advance(PENDING_MS);
  const delivery = await acme.inbox.waitFor("DUP-1", { timeoutMs: 500 });
  expect(acme.inbox.deliveries().filter((d) => d.webhook?.reference === "DUP-1")).toHaveLength(1);
  expect(acme.inbox.duplicates() - before).toBe(2);
  expect(requestsFor("DUP-1")).toHaveLength(3);
  const listed = await deliveriesOf("DUP-1");
  expect(listed.map((d) => d.kind)).toEqual(["status", "duplicate", "duplicate"]);
  expect(new Set(listed.map((d) => d.messageId))).toEqual(new Set([delivery.webhookId]));
  expect(listed.every((d) => d.state === "delivered")).toBe(true);
});

it("staleAfterFinal: after the final message, an earlier non-final status arrives under a new webhook-id", async () => {
  await placeOrder(env.url, acme.token, "STALE-1");
  await env.sim.clock.advance(PENDING_MS);
  await acme.inbox.waitUntil((all) => all.filter((d) => d.webhook?.reference === "STALE-1").length === 2, 1000);
  const [final, stale] = acme.inbox.deliveries().filter((d) => d.webhook?.reference === "STALE-1");
  expect(final?.webhook).toMatchObject({ status: 20, final: true });
  expect(stale?.webhook).toMatchObject({ status: 3, message: "Submitted", final: false });
  expect(stale?.webhookId).not.toBe(final?.webhookId);
  expect(stale?.receivedAt).toBeGreaterThanOrEqual(final?.receivedAt ?? Number.POSITIVE_INFINITY);
  const listed = await deliveriesOf("STALE-1");
  expect(listed.map((d) => [d.kind, d.status, d.state])).toEqual([
    ["status", 20, "delivered"],
    ["stale", 3, "delivered"],
  ]);
  expect(listed[1]?.parentId).toBe(listed[0]?.id);
});

it("badSignature: signed with a wrong secret, so the inbox rejects every attempt and records none as verified", async () => {
  const rejectedBefore = acme.inbox.rejected().length;
  await placeOrder(env.url, acme.token, "BADSIG-1");
  await env.sim.clock.advance(PENDING_MS);
  for (const delay of TEST_SCHEDULE.slice(1)) await env.sim.clock.advance(delay);
  expect(acme.inbox.deliveries().some((d) => d.body.includes("BADSIG-1"))).toBe(false);
  const rejected = acme.inbox.rejected().slice(rejectedBefore);
  expect(rejected).toHaveLength(TEST_SCHEDULE.length);
  expect(rejected.every((r) => r.reason === "No matching signature found" && r.body.includes("BADSIG-1"))).toBe(true);
  const [delivery] = await deliveriesOf("BADSIG-1");
  expect(delivery).toMatchObject({ state: "failed", badSignature: true, attemptCount: 3 });
});

it("drop: never sent, and shown as dropped", async () => {
  const requestsBefore = acme.inbox.requests().length;
  await placeOrder(env.url, acme.token, "DROP-1");
  await env.sim.clock.advance(PENDING_MS);
  for (const delay of TEST_SCHEDULE.slice(1)) await env.sim.clock.advance(delay);
  expect(acme.inbox.requests()).toHaveLength(requestsBefore);
  const [delivery] = await deliveriesOf("DROP-1");
  expect(delivery).toMatchObject({ state: "dropped", attemptCount: 0, nextAttemptAt: null });
});

it("beforeResponse: the webhook has arrived by the time the HTTP response does, without the clock moving", async () => {
  const at = env.sim.clock.now();
  const placed = await placeOrder(env.url, acme.token, "FIRST-1");
  // Checked synchronously after the response: no waiting.
  const arrived = acme.inbox.deliveries().find((d) => d.webhook?.reference === "FIRST-1");
  expect(arrived?.webhook).toMatchObject({ id: placed.id, status: 20, final: true });
  expect(env.sim.clock.now()).toBe(at);
  const [delivery] = await deliveriesOf("FIRST-1");
  const detail = await admin(env.url, "GET", `/deliveries/${delivery?.id}`);
  expect(detail.body.attempts.map((a: { trigger: string }) => a.trigger)).toEqual(["before_response"]);
  // The scheduled first attempt was taken over: advancing sends nothing more.
  await env.sim.clock.advance(PENDING_MS);
  expect(requestsFor("FIRST-1")).toHaveLength(1);
});

it("intermediate statuses are sent only when asked for", async () => {
  await placeOrder(env.url, acme.token, "PATH-1");
  await env.sim.clock.advance(PENDING_MS);
  await acme.inbox.waitFor("PATH-1", { timeoutMs: 500 });
  expect(acme.inbox.deliveries().filter((d) => d.webhook?.reference === "PATH-1")).toHaveLength(1);

  const verbose = await startSim({ intermediate: true }, { plugins: [faultsByReference] });
  const watcher = await addCustomer(verbose.sim, "watcher");
  try {
    await placeOrder(verbose.url, watcher.token, "PATH-2");
    await verbose.sim.clock.advance(PENDING_MS);
    await watcher.inbox.waitUntil((all) => all.length === 3, 1000);
    // Requests start in status order but run in parallel, so arrival order is not promised: sort by status time.
    const received = [...watcher.inbox.deliveries()].sort((a, b) =>
      (a.webhook?.timestamp ?? "").localeCompare(b.webhook?.timestamp ?? ""),
    );
    expect(received.map((d) => [d.webhook?.status, d.webhook?.final])).toEqual([
      [3, false],
      [31, false],
      [20, true],
    ]);
  } finally {
    await verbose.close();
    await watcher.inbox.close();
  }
});
