/**
 * The admin reset reaches the deliveries, and the inbox's verification
 * catches a sender whose signing is broken.
 */
import { expect, it } from "vitest";
import { createWebhookInbox } from "../../src/webhooks/inbox.ts";
import { generateWebhookSecret, type SignInput, signWebhook } from "../../src/webhooks/signing.ts";
import { send } from "../support/http.ts";
import { admin, PENDING_MS, placeOrder, TEST_SCHEDULE, useCustomer, useSim } from "./support.ts";

const env = useSim();
const keep = useCustomer(env, "keep");
const wipe = useCustomer(env, "wipe");

it("POST /_sim/reset?customer= forgets that customer's deliveries and cancels their retries; others stay", async () => {
  wipe.inbox.respondWith(503);
  await placeOrder(env.url, wipe.token, "WIPE-1");
  await placeOrder(env.url, keep.token, "KEEP-1");
  await env.sim.clock.advance(PENDING_MS);
  expect((await admin(env.url, "GET", "/deliveries?customer=wipe")).body.deliveries[0].state).toBe("pending");

  const reset = await admin(env.url, "POST", "/reset?customer=wipe");
  expect(reset.status).toBe(200);
  expect((await admin(env.url, "GET", "/deliveries?customer=wipe")).body.deliveries).toEqual([]);
  expect((await admin(env.url, "GET", "/deliveries?customer=keep")).body.deliveries).toHaveLength(1);
  for (const delay of TEST_SCHEDULE.slice(1)) await env.sim.clock.advance(delay);
  // Only the first attempt ever reached the receiver.
  expect(wipe.inbox.requests()).toHaveLength(1);

  await admin(env.url, "POST", "/reset");
  expect((await admin(env.url, "GET", "/deliveries")).body.deliveries).toEqual([]);
});

it("a sender that signs a different body than it sends is rejected, never recorded as verified", async () => {
  const secret = generateWebhookSecret();
  const inbox = createWebhookInbox({ secret });
  const url = await inbox.listen();
  try {
    const body = JSON.stringify({ type: "airtime.status", reference: "BROKEN-1", status: 20 });
    // Broken on purpose: signs the body with a trailing space but sends it without.
    const brokenSign = (input: SignInput) => signWebhook({ ...input, body: `${input.body} ` });
    const headers = brokenSign({
      id: "msg_broken",
      timestampSeconds: Math.floor(Date.now() / 1000),
      body,
      secrets: [secret],
    });
    const response = await send(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      raw: body,
    });
    expect(response.status).toBe(400);
    expect(inbox.deliveries()).toEqual([]);
    expect(inbox.rejected()).toMatchObject([{ webhookId: "msg_broken", reason: "No matching signature found", body }]);
    expect(inbox.requests()).toMatchObject([{ verified: false, status: 400 }]);
  } finally {
    await inbox.close();
  }
});
