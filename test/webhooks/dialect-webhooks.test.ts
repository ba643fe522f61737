/**
 * Webhooks in a provider's dialect: the foreign provider's profile makes the
 * simulator send its body (event name, the order under /data, words, string
 * money), its delivery-id header and its HMAC-SHA256 hex signature over
 * `<timestamp>.<body>`, which node:crypto and the profile's own verifier
 * accept and a wrong secret does not.
 */
import { createHmac } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, test } from "vitest";
import { compileProfile, type CompiledProfile } from "../../src/contract/provider-profile/compile.ts";
import { loadProviderProfile } from "../../src/contract/provider-profile/load.ts";
import type { Simulator } from "../../src/simulator/create-simulator.ts";
import { createWebhookPlugin } from "../../src/webhooks/webhook-plugin.ts";
import { orderBody, placeOrder, startSimulatorOnPort } from "../support/http.ts";
import { type RecordedRequest, type RecordingReceiver, startRecordingReceiver } from "../support/recording-receiver.ts";

const FOREIGN_PROFILE = fileURLToPath(new URL("../harness/foreign/foreign-profile.yaml", import.meta.url));
const SECRET = "foreign-provider-shared-secret";
const TOKEN = "dialect-token-000001";

let receiver: RecordingReceiver;
let received: RecordedRequest[];
let sim: Simulator;
let profile: CompiledProfile;

beforeAll(async () => {
  receiver = await startRecordingReceiver();
  received = receiver.received;
  const loaded = await loadProviderProfile(FOREIGN_PROFILE);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  profile = compileProfile(loaded.profile);
  sim = await startSimulatorOnPort({
    provider: loaded.profile,
    timing: "1000ms",
    failureRate: 0.5,
    demo: false,
    plugins: [createWebhookPlugin({ schedule: [0, 100], timeout: "2s", jitter: 0 })],
  });
  const url = receiver.url;
  await sim.customers.createCustomer({
    id: "shop",
    token: TOKEN,
    balance: 100_000,
    webhook: { url, secrets: [SECRET] },
  });
});

afterAll(async () => {
  await sim.close();
  await receiver.close();
});

function header(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name];
  if (typeof value !== "string") throw new Error(`no ${name} header`);
  return value;
}

async function waitForDeliveries(count: number): Promise<void> {
  await expect.poll(() => received.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(count);
}

test("every final status arrives in the provider's body, HMAC-signed over timestamp.body", async () => {
  const references = Array.from({ length: 6 }, (_, index) => `DIALECT-HOOK-${index}`);
  for (const reference of references) {
    const placed = await placeOrder(sim, orderBody({ reference, amount: 100 }), {}, TOKEN);
    expect(placed.status).toBe(200);
  }
  await sim.clock.advance(60_000);
  await waitForDeliveries(references.length);
  const verifier = profile.verifier(SECRET);
  const wrong = profile.verifier("another-secret");
  for (const delivery of received) {
    const timestamp = header(delivery.headers, "x-timestamp");
    const expected = `sha256=${createHmac("sha256", SECRET).update(`${timestamp}.${delivery.body}`).digest("hex")}`;
    expect(header(delivery.headers, "x-signature")).toBe(expected);
    const flat = Object.fromEntries(Object.entries(delivery.headers).map(([name, value]) => [name, String(value)]));
    expect(verifier.verify(delivery.body, flat)).toEqual({ kind: "verified" });
    expect(wrong.verify(delivery.body, flat).kind).toBe("rejected");
    expect(header(delivery.headers, "x-delivery-id")).not.toBe("");
    expect(delivery.headers["webhook-signature"]).toBeUndefined();

    const payload = JSON.parse(delivery.body) as { event: string; data: { status: string; amount: string } };
    expect(profile.isStatusEvent(payload)).toBe(true);
    expect(payload.data.amount).toBe("100.00");
    const order = profile.readOrder("webhook", payload);
    expect(references).toContain(order.reference);
    expect(order.status).toBeDefined();
    const statusClass = profile.statuses.classOf(order.status as number);
    const expectedEvent = { success: "airtime.completed", failed: "airtime.failed", reversed: "airtime.reversed" };
    expect(payload.event).toBe(expectedEvent[statusClass as keyof typeof expectedEvent]);
  }
  const words = new Set(
    received.map((delivery) => (JSON.parse(delivery.body) as { data: { status: string } }).data.status),
  );
  expect([...words].every((word) => ["SUCCESS", "FAILED", "TIMEOUT", "REVERSED"].includes(word))).toBe(true);
});
