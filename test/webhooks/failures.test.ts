/**
 * Receivers that stay down, come back, answer 410, ask to wait, redirect, or
 * refuse connections — and what the admin API shows for each.
 */
import { afterAll, expect, it } from "vitest";
import { createWebhookInbox } from "../../src/webhooks/inbox.ts";
import { send } from "../support/http.ts";
import { addCustomer, admin, PENDING_MS, placeOrder, TEST_SCHEDULE, type TestCustomer, useSim } from "./support.ts";

const env = useSim();
const customers: TestCustomer[] = [];

afterAll(async () => {
  for (const customer of customers) await customer.inbox.close();
});

async function customer(id: string): Promise<TestCustomer> {
  const created = await addCustomer(env.sim, id);
  customers.push(created);
  return created;
}

/** Runs the whole retry schedule (0, 100 ms, 1 s) after the order turned final. */
async function runWholeSchedule(): Promise<void> {
  await env.sim.clock.advance(PENDING_MS);
  for (const delay of TEST_SCHEDULE.slice(1)) await env.sim.clock.advance(delay);
}

async function onlyDelivery(reference: string) {
  const listed = await admin(env.url, "GET", `/deliveries?reference=${encodeURIComponent(reference)}`);
  expect(listed.status).toBe(200);
  expect(listed.body.deliveries).toHaveLength(1);
  return (await admin(env.url, "GET", `/deliveries/${listed.body.deliveries[0].id}`)).body;
}

it("a receiver down for longer than the schedule leaves a visible failed delivery; redelivery succeeds once it is back", async () => {
  const down = await customer("down");
  down.inbox.respondWith(503);
  await placeOrder(env.url, down.token, "DOWN-1");
  await runWholeSchedule();
  const failed = await onlyDelivery("DOWN-1");
  expect(failed.state).toBe("failed");
  expect(failed.reason).toMatch(/3 scheduled attempts/);
  expect(failed.attempts.map((a: { responseStatus: number }) => a.responseStatus)).toEqual([503, 503, 503]);
  const byState = await admin(env.url, "GET", "/deliveries?customer=down&state=failed");
  expect(byState.body.deliveries.map((d: { reference: string }) => d.reference)).toEqual(["DOWN-1"]);
  // Much later, nothing more is tried.
  await env.sim.clock.advance(24 * 3_600_000);
  expect(down.inbox.requests()).toHaveLength(3);

  down.inbox.respondWith(200);
  const redelivered = await admin(env.url, "POST", `/deliveries/${failed.id}/redeliver`);
  expect(redelivered.status).toBe(200);
  expect(redelivered.body.attempt).toMatchObject({
    number: 4,
    trigger: "redeliver",
    outcome: "delivered",
    responseStatus: 200,
  });
  expect(redelivered.body.delivery.state).toBe("delivered");
  const delivery = await down.inbox.waitFor("DOWN-1");
  expect(delivery.webhookId).toBe(failed.messageId);
  expect((await onlyDelivery("DOWN-1")).state).toBe("delivered");
});

it("410 Gone disables the endpoint, visibly; later messages are not sent; enable + redeliver brings it back", async () => {
  const gone = await customer("gone");
  gone.inbox.respondWith(410);
  await placeOrder(env.url, gone.token, "GONE-1");
  await env.sim.clock.advance(PENDING_MS);
  const first = await onlyDelivery("GONE-1");
  expect(first).toMatchObject({ state: "disabled", reason: "the endpoint answered 410 Gone", nextAttemptAt: null });
  expect(first.attempts[0]).toMatchObject({ outcome: "gone", responseStatus: 410 });
  const customerView = await admin(env.url, "GET", "/customers/gone");
  expect(customerView.body.webhook.disabled).toBe(true);

  // While disabled: recorded, never sent.
  gone.inbox.respondWith(200);
  await placeOrder(env.url, gone.token, "GONE-2");
  await runWholeSchedule();
  const second = await onlyDelivery("GONE-2");
  expect(second).toMatchObject({ state: "disabled", attemptCount: 0 });
  expect(gone.inbox.requests()).toHaveLength(1);

  const refused = await admin(env.url, "POST", `/deliveries/${second.id}/redeliver`, {});
  expect(refused.status).toBe(409);
  expect(refused.body).toMatchObject({ code: "webhook_endpoint_disabled", status: 409 });
  const enabled = await admin(env.url, "POST", `/deliveries/${second.id}/redeliver`, { enable: true });
  expect(enabled.status).toBe(200);
  expect(enabled.body.delivery.state).toBe("delivered");
  expect((await admin(env.url, "GET", "/customers/gone")).body.webhook.disabled).toBe(false);
  await gone.inbox.waitFor("GONE-2");
});

it("Retry-After on 503 and 429 delays the next attempt when it asks for longer than the schedule", async () => {
  const busy = await customer("busy");
  busy.inbox.respondWith(({ attempt }) =>
    attempt === 1
      ? { status: 503, headers: { "retry-after": "30" } }
      : attempt === 2
        ? { status: 429, headers: { "retry-after": new Date(Date.now() + 120_000).toUTCString() } }
        : 200,
  );
  await placeOrder(env.url, busy.token, "BUSY-1");
  await env.sim.clock.advance(PENDING_MS);
  const finalAt = env.sim.clock.now();
  let detail = await onlyDelivery("BUSY-1");
  expect(detail.attempts[0].retryAfterMs).toBe(30_000);
  expect(Date.parse(detail.nextAttemptAt)).toBe(finalAt + 30_000);
  // The schedule's 100 ms passes: nothing is sent yet.
  await env.sim.clock.advance(100);
  expect(busy.inbox.requests()).toHaveLength(1);
  await env.sim.clock.advance(30_000 - 100);
  detail = await onlyDelivery("BUSY-1");
  expect(detail.attempts).toHaveLength(2);
  // An HTTP date two minutes ahead: about 120 s (the header has whole seconds).
  expect(detail.attempts[1].retryAfterMs).toBeGreaterThan(110_000);
  expect(detail.attempts[1].retryAfterMs).toBeLessThanOrEqual(120_000);
  await env.sim.clock.advance(detail.attempts[1].retryAfterMs);
  await busy.inbox.waitFor("BUSY-1", { timeoutMs: 500 });
});

it("a 3xx is a failed attempt (redirects are not followed), and a closed port is connection_refused", async () => {
  const moved = await customer("moved");
  moved.inbox.respondWith({ status: 301, headers: { location: "http://127.0.0.1:1/elsewhere" } });
  await placeOrder(env.url, moved.token, "MOVED-1");
  await env.sim.clock.advance(PENDING_MS);
  const redirected = await onlyDelivery("MOVED-1");
  expect(redirected.attempts[0]).toMatchObject({ responseStatus: 301, outcome: "failed" });
  expect(redirected.state).toBe("pending");

  const closed = await customer("closed");
  await closed.inbox.close();
  await placeOrder(env.url, closed.token, "CLOSED-1");
  await env.sim.clock.advance(PENDING_MS);
  const refused = await onlyDelivery("CLOSED-1");
  expect(refused.attempts[0]).toMatchObject({ responseStatus: null, error: "connection_refused", outcome: "failed" });
  expect(refused.state).toBe("pending");
});

it("the admin routes answer bad input with problem+json, never a 5xx", async () => {
  const badState = await admin(env.url, "GET", "/deliveries?state=lost");
  expect(badState.status).toBe(400);
  expect(badState.body.code).toBe("validation_failed");
  expect(badState.body.errors[0].pointer).toBe("#/state");
  expect((await admin(env.url, "GET", "/deliveries?customer=a&customer=b")).status).toBe(400);
  expect((await admin(env.url, "GET", "/deliveries/dlv_nope")).body.code).toBe("not_found");
  expect((await admin(env.url, "POST", "/deliveries/dlv_nope/redeliver")).body.code).toBe("not_found");
  const [any] = (await admin(env.url, "GET", "/deliveries")).body.deliveries;
  const badBody = await admin(env.url, "POST", `/deliveries/${any.id}/redeliver`, { enable: "yes" });
  expect(badBody.status).toBe(400);
  expect(badBody.body.code).toBe("validation_failed");
  expect((await admin(env.url, "DELETE", `/deliveries/${any.id}`)).status).toBe(405);
  const noToken = await send(env.url, "/_sim/deliveries");
  expect(noToken.status).toBe(401);
});

it("a customer without a webhook endpoint gets no deliveries; removing the endpoint makes redelivery a 409", async () => {
  const created = await env.sim.customers.createCustomer({
    id: "quiet",
    token: "token-quiet-0123456789",
    balance: 1000,
  });
  expect(created.kind).toBe("created");
  await placeOrder(env.url, "token-quiet-0123456789", "QUIET-1");
  await env.sim.clock.advance(PENDING_MS);
  expect((await admin(env.url, "GET", "/deliveries?customer=quiet")).body.deliveries).toEqual([]);

  const inbox = createWebhookInbox({ secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" });
  const url = await inbox.listen();
  try {
    await admin(env.url, "PATCH", "/customers/quiet", {
      webhook: { url, secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"] },
    });
    await placeOrder(env.url, "token-quiet-0123456789", "QUIET-2");
    await env.sim.clock.advance(PENDING_MS);
    await inbox.waitFor("QUIET-2", { timeoutMs: 500 });
    const [delivery] = (await admin(env.url, "GET", "/deliveries?customer=quiet")).body.deliveries;
    await admin(env.url, "PATCH", "/customers/quiet", { webhook: null });
    const missing = await admin(env.url, "POST", `/deliveries/${delivery.id}/redeliver`);
    expect(missing.status).toBe(409);
    expect(missing.body.code).toBe("webhook_endpoint_missing");
  } finally {
    await inbox.close();
  }
});
