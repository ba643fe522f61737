/**
 * A receiver that fails the first k attempts gets the webhook on attempt
 * k+1, at the scheduled simulator-clock times, with one webhook-id, and the
 * body's final status equals the lookup.
 */
import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createMemoryDeliveryStore } from "../../src/webhooks/memory-delivery-store.ts";
import type { DeliveryStore } from "../../src/webhooks/ports.ts";
import { lookup } from "../support/http.ts";
import { addCustomer, admin, PENDING_MS, placeOrder, startSim, type TestCustomer, type WebhookSim } from "./support.ts";

const SCHEDULE = [0, 100, 1000, 5000, 60_000];

interface Setup {
  readonly env: WebhookSim;
  readonly customer: TestCustomer;
  /** How many attempts to fail, by reference. */
  readonly failFirst: Map<string, number>;
}

async function setUp(id: string, deliveryStore?: DeliveryStore): Promise<Setup> {
  const env = await startSim({ schedule: SCHEDULE, deliveryStore });
  const customer = await addCustomer(env.sim, id);
  const failFirst = new Map<string, number>();
  // The receiver fails the first k attempts of each order's message, with k chosen per reference.
  customer.inbox.respondWith(({ attempt, payload }) => {
    const k = failFirst.get((payload as { reference: string }).reference) ?? 0;
    return attempt <= k ? 503 : 200;
  });
  return { env, customer, failFirst };
}

let counter = 0;

/** Runs one order through k failures; throws (an expect) when a promise of the property breaks. */
async function failFirstK({ env, customer, failFirst }: Setup, k: number): Promise<void> {
  const reference = `RETRY-${++counter}-k${k}`;
  failFirst.set(reference, k);
  await placeOrder(env.url, customer.token, reference);
  await env.sim.clock.advance(PENDING_MS);
  const finalAt = env.sim.clock.now();
  for (let attempt = 2; attempt <= k + 1; attempt++) await env.sim.clock.advance(SCHEDULE[attempt - 1] as number);

  // advance() settles the attempts, so the delivery is already in (or never comes).
  const delivery = await customer.inbox.waitFor(reference, { timeoutMs: 300 });
  expect(delivery.attempt).toBe(k + 1);
  const requests = customer.inbox.requests().filter((request) => request.webhookId === delivery.webhookId);
  expect(requests.map((request) => request.status)).toEqual([...Array<number>(k).fill(503), 200]);

  const listed = await admin(env.url, "GET", `/deliveries?reference=${reference}`);
  expect(listed.body.deliveries).toHaveLength(1);
  const detail = await admin(env.url, "GET", `/deliveries/${listed.body.deliveries[0].id}`);
  expect(detail.body.state).toBe("delivered");
  const attempts = detail.body.attempts as Array<{
    sentAt: string;
    scheduledAt: string;
    requestHeaders: Record<string, string>;
  }>;
  expect(attempts).toHaveLength(k + 1);
  let due = finalAt;
  attempts.forEach((attempt, index) => {
    due += SCHEDULE[index] as number;
    expect(Date.parse(attempt.scheduledAt)).toBe(due);
    expect(Date.parse(attempt.sentAt)).toBe(due);
    expect(attempt.requestHeaders["webhook-id"]).toBe(delivery.webhookId);
  });
  // Nothing further after the success.
  expect(detail.body.nextAttemptAt).toBeNull();

  const found = await lookup(env.url, reference, customer.token);
  expect(found.status).toBe(200);
  expect(delivery.webhook?.status).toBe(found.body.status);
  expect(delivery.webhook?.final).toBe(true);
}

let good: Setup;

beforeAll(async () => {
  good = await setUp("retry-good");
});

afterAll(async () => {
  await good?.env.close();
  await good?.customer.inbox.close();
});

it("k failed attempts, then delivery on attempt k+1 at the scheduled times with one webhook-id (property)", async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 0, max: SCHEDULE.length - 1 }), (k) => failFirstK(good, k)),
    { numRuns: 15 },
  );
});

it("the property catches a dispatcher that sends a new webhook-id on each retry", async () => {
  // Broken on purpose: every stored update re-labels the message, as a buggy sender would.
  const inner = createMemoryDeliveryStore();
  let relabel = 0;
  const broken: DeliveryStore = {
    ...inner,
    update: (id, change) => inner.update(id, (current) => ({ ...change(current), messageId: `msg_new${++relabel}` })),
  };
  const bad = await setUp("retry-bad", broken);
  try {
    const result = await fc.check(
      fc.asyncProperty(fc.integer({ min: 0, max: SCHEDULE.length - 1 }), (k) => failFirstK(bad, k)),
      { numRuns: 30, seed: 42 },
    );
    expect(result.failed).toBe(true);
    // Shrinks to the smallest k that needs a retry.
    expect(result.counterexample).toEqual([1]);
  } finally {
    await bad.env.close();
    await bad.customer.inbox.close();
  }
});
