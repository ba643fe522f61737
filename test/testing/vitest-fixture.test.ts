/**
 * The `airtime-harness/vitest` fixture used as its docs show: an order
 * placed, the virtual clock advanced, the verified webhook awaited; one
 * simulator per file, reset between tests.
 */
import { Webhook } from "standardwebhooks";
import { describe, expect } from "vitest";
import { type TestSimulator, test } from "../../src/testing/vitest.ts";

const ORDER = { account: "0712345678", amount: 100, currency: "KES", reference: "ORDER-1" } as const;
const simulatorsSeen = new Set<TestSimulator>();

describe.sequential("the vitest fixture", () => {
  test("places an order, advances the clock and awaits its verified webhook", async ({ simulator }) => {
    simulatorsSeen.add(simulator);
    const placed = await simulator.client.sendAirtime(ORDER, { idempotencyKey: "key-1" });
    expect(placed.status).toBe(200);
    expect(placed.body).toMatchObject({ reference: "ORDER-1", status: 0 });

    await simulator.advance(2_000);
    const webhook = await simulator.expectWebhook({ reference: "ORDER-1", status: 20 });
    expect(webhook).toMatchObject({ reference: "ORDER-1", status: 20, amount: 100 });

    // The inbox accepted it only after checking the signature; the Standard Webhooks library agrees.
    const delivery = simulator.inbox.deliveries().find((received) => received.webhook?.status === 20);
    if (delivery === undefined) throw new Error("no final delivery recorded");
    const verified = new Webhook(simulator.webhookSecret).verify(delivery.body, delivery.headers);
    expect(verified).toEqual(webhook);

    const lookup = await simulator.client.getTransaction("ORDER-1");
    expect(lookup.status).toBe(200);
    expect(lookup.body).toMatchObject({ reference: "ORDER-1", status: 20 });
  });

  test("the next test gets the same simulator, reset: balance, orders and inbox", async ({ simulator }) => {
    simulatorsSeen.add(simulator);
    expect(simulatorsSeen.size).toBe(1);
    expect(simulator.inbox.deliveries()).toEqual([]);
    const balance = await simulator.client.getBalance();
    expect(balance.body).toMatchObject({ amount: 100_000 }); // the first test spent 100 of it
    const lookup = await simulator.client.getTransaction("ORDER-1");
    expect(lookup.status).toBe(404);
    // The reference is free again, even under the same idempotency key.
    const placed = await simulator.client.sendAirtime(ORDER, { idempotencyKey: "key-1" });
    expect(placed.status).toBe(200);
  });

  test("expectWebhook rejects, naming the order, when no webhook comes", async ({ simulator }) => {
    await simulator.client.sendAirtime({ ...ORDER, reference: "NEVER-FINAL" });
    await expect(simulator.expectWebhook({ reference: "NEVER-FINAL", status: 20, timeoutMs: 100 })).rejects.toThrow(
      /NEVER-FINAL/,
    );
  });

  test("the client reports a refusal with its status and problem code", async ({ simulator }) => {
    const refused = await simulator.client.sendAirtime({ ...ORDER, amount: 1 });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: expect.any(String) });
  });
});
