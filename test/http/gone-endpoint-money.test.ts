/**
 * Money under a receiver that answers 410 Gone, seen from outside: orders
 * are placed over HTTP while the 410s disable the endpoint and a redelivery
 * with `enable` turns it back on, round after round. Disabling or enabling an
 * endpoint touches the endpoint only, so every cent is still accounted for:
 * the starting balance equals the balance plus what the orders hold. On the
 * Redis store (the `redis` project) a customer read and its write are round
 * trips apart, so the placements really land between them; the interleaving
 * is forced on both stores in `test/webhooks/gone-endpoint-money.test.ts`.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { DEFAULT_STATUS_TABLE, refundsWallet } from "../../src/contract/status-codes.ts";
import type { Simulator } from "../../src/simulator/create-simulator.ts";
import { createWebhookInbox, type WebhookInbox } from "../../src/webhooks/inbox.ts";
import { generateWebhookSecret } from "../../src/webhooks/signing.ts";
import { createWebhookPlugin } from "../../src/webhooks/webhook-plugin.ts";
import { admin, orderBody, placeOrder, startSimulatorOnPort } from "../support/http.ts";

const TOKEN = "gone-money-token-1";
const START_KES = 100_000;
const ROUNDS = 20;
/** A bound on the traffic, well within the balance, however slowly the rounds go. */
const MAX_ORDERS = 1_500;
const LANES = 8;
const PENDING_MS = 1000;

let sim: Simulator;
let receiver: WebhookInbox;

beforeAll(async () => {
  const secret = generateWebhookSecret();
  receiver = createWebhookInbox({ secret, respond: 410 });
  const url = await receiver.listen();
  sim = await startSimulatorOnPort({
    demo: false,
    timing: `${PENDING_MS}ms`,
    plugins: [createWebhookPlugin({ schedule: [0], timeout: "2s", jitter: 0 })],
    customers: [{ id: "gone", token: TOKEN, balance: START_KES, webhook: { url, secrets: [secret] } }],
  });
});
afterAll(async () => {
  await sim.close();
  await receiver.close();
});

/** Wallets plus what orders hold (debited, not refunded), in cents. */
async function moneyInCents(): Promise<number> {
  const customer = await admin(sim, "/customers/gone");
  let total = 0;
  for (const wallet of customer.body.wallets as { balance: number }[]) total += Math.round(wallet.balance * 100);
  let cursor: string | null = null;
  do {
    const after = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`;
    const page = await admin(sim, `/orders?customer=gone&limit=1000${after}`);
    for (const order of page.body.orders as { amount: number; status: number }[]) {
      if (!refundsWallet(DEFAULT_STATUS_TABLE, order.status)) total += Math.round(order.amount * 100);
    }
    cursor = page.body.next_cursor as string | null;
  } while (cursor !== null);
  return total;
}

/** Re-enables the endpoint through a redelivery of the latest disabled delivery, if there is one yet. */
async function enableAgain(): Promise<void> {
  const disabled = await admin(sim, "/deliveries?state=disabled&limit=1");
  const [delivery] = disabled.body.deliveries as { id: string }[];
  if (delivery === undefined) return;
  const again = await admin(sim, `/deliveries/${delivery.id}/redeliver`, { method: "POST", body: { enable: true } });
  expect([200, 409]).toContain(again.status);
}

/** Orders placed over HTTP, `lanes` at a time, until `done()` holds; resolves to how many were placed. */
async function traffic(lanes: number, done: () => boolean): Promise<number> {
  let placed = 0;
  const lane = async (): Promise<void> => {
    while (!done() && placed < MAX_ORDERS) {
      const reply = await placeOrder(sim, orderBody({ amount: 10 }), {}, TOKEN);
      expect(reply.status).toBe(200);
      placed += 1;
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  return placed;
}

test("orders placed while a 410 disables the endpoint and a redelivery enables it: money conserved", async () => {
  let rounds = 0;
  const placing = traffic(LANES, () => rounds >= ROUNDS);
  for (; rounds < ROUNDS; rounds++) await Promise.all([sim.clock.advance(PENDING_MS), enableAgain()]);
  const placed = await placing;
  await sim.clock.advance(PENDING_MS);
  await sim.settle();
  expect(placed).toBeGreaterThan(ROUNDS);
  // The receiver was reached and answered 410 more than once: the endpoint was disabled and enabled again.
  expect(receiver.requests().length).toBeGreaterThan(1);
  expect(await moneyInCents()).toBe(START_KES * 100);
});
