/**
 * What one side's webhook receiver makes of the requests it gets: signed
 * deliveries posted over HTTP by the test, counted per final status, per
 * delivery id and per status change; a forged one counted, never kept.
 */
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, test } from "vitest";
import { compileProfile } from "../../src/contract/provider-profile/compile.ts";
import { generateWebhookSecret } from "../../src/contract/signing.ts";
import { collectWebhooks, startWebhookRecorder, type WebhookRecorder } from "../../src/compare/observe-webhooks.ts";

const profile = compileProfile();
let recorder: WebhookRecorder | undefined;
afterEach(async () => {
  await recorder?.close();
  recorder = undefined;
});

async function post(url: string, secret: string, id: string, body: Record<string, unknown>): Promise<number> {
  const text = JSON.stringify(body);
  const timestamp = new Date();
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)),
      "webhook-signature": new Webhook(secret).sign(id, timestamp, text),
    },
    body: text,
  });
  return response.status;
}

const event = (reference: string, status: number) => ({ type: "airtime.status", id: "ord_1", reference, status });

describe("collectWebhooks", () => {
  test("counts status changes per order, repeats of a delivery id, changes under two ids and forgeries", async () => {
    recorder = await startWebhookRecorder({ profile, secret: generateWebhookSecret() });
    const { url, secret } = recorder;
    expect(await post(url, secret, "msg_a", event("A", 20))).toBe(200);
    expect(await post(url, secret, "msg_a", event("A", 20))).toBe(200); // the same delivery again
    expect(await post(url, secret, "msg_b1", event("B", 2))).toBe(200);
    expect(await post(url, secret, "msg_b2", event("B", 2))).toBe(200); // the same change, a new id
    expect(await post(url, "whsec_" + Buffer.alloc(32, 1).toString("base64"), "msg_x", event("A", 20))).toBe(400);
    expect(await post(url, secret, "msg_z", event("not-ours", 20))).toBe(200);

    const seen = await collectWebhooks(recorder, {
      profile,
      orders: [
        { reference: "A", status: 20 },
        { reference: "B", status: 2 },
        { reference: "C", status: 6 },
      ],
      timeoutMs: 300,
      quietMs: 50,
    });

    expect(seen.eventsPerOrder).toEqual({ Success: { "1": 1 }, Failed: { "1": 1 }, Timeout: { "0": 1 } });
    expect(seen.arrivalsPerDelivery).toEqual({ "2": 1, "1": 2 });
    expect(seen.repeatGapsMs).toHaveLength(1);
    expect(seen.repeatsAfter2xx).toBe(1);
    expect(seen).toMatchObject({ statusChanges: 2, duplicatedChanges: 1, requests: 6, invalidSignatures: 1 });
    expect(seen.eventNames).toEqual({ "airtime.status": 3 });
    // Nothing that names an order, a delivery or a time is kept.
    expect(JSON.stringify(seen)).not.toMatch(/msg_|ord_|"A"|"B"/);
  });
});
