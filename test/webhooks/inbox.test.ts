import { afterEach, describe, expect, it } from "vitest";
import type { WebhookPayload } from "../../src/contract/webhook-schemas.ts";
import { createWebhookInbox, type WebhookInbox } from "../../src/webhooks/inbox.ts";
import { generateWebhookSecret, signWebhook } from "../../src/webhooks/signing.ts";

const secret = generateWebhookSecret();
let inbox: WebhookInbox | undefined;

afterEach(async () => {
  await inbox?.close();
  inbox = undefined;
});

function payload(reference: string, status = 20): WebhookPayload {
  return {
    type: "airtime.status",
    id: `ord_${reference}`,
    reference,
    status,
    message: status === 20 ? "Success" : "Failed",
    final: true,
    service: "safaricom",
    account: "+254712345678",
    amount: 100,
    balance: 900,
    currency: "KES",
    shortcode: null,
    timestamp: new Date(0).toISOString(),
  };
}

async function post(url: string, id: string, body: string, secrets: readonly string[] = [secret]) {
  const headers = signWebhook({ id, timestampSeconds: Math.floor(Date.now() / 1000), body, secrets });
  return fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
}

describe("webhook inbox", () => {
  it("records a verified delivery once per webhook-id and counts duplicates", async () => {
    inbox = createWebhookInbox({ secret });
    const url = await inbox.listen();
    const body = JSON.stringify(payload("R-1"));
    expect((await post(url, "msg_1", body)).status).toBe(200);
    expect((await post(url, "msg_1", body)).status).toBe(200);
    const delivery = await inbox.waitFor("R-1", { status: 20 });
    expect(delivery.webhookId).toBe("msg_1");
    expect(delivery.webhook?.reference).toBe("R-1");
    expect(delivery.verified).toBe(true);
    expect(inbox.deliveries()).toHaveLength(1);
    expect(inbox.duplicates()).toBe(1);
    expect(inbox.requests().map((r) => r.duplicate)).toEqual([false, true]);
  });

  it("rejects a wrong secret, a tampered body and unsigned requests with 400, never as deliveries", async () => {
    const rejected: string[] = [];
    inbox = createWebhookInbox({ secret, onRejected: (r) => rejected.push(r.reason) });
    const url = await inbox.listen();
    const body = JSON.stringify(payload("R-2"));
    expect((await post(url, "msg_a", body, [generateWebhookSecret()])).status).toBe(400);
    const headers = signWebhook({
      id: "msg_b",
      timestampSeconds: Math.floor(Date.now() / 1000),
      body,
      secrets: [secret],
    });
    const tampered = body.replace('"status":20', '"status":2');
    expect((await fetch(url, { method: "POST", headers: { ...headers }, body: tampered })).status).toBe(400);
    expect((await fetch(url, { method: "POST", body })).status).toBe(400);
    expect(inbox.deliveries()).toHaveLength(0);
    expect(inbox.rejected()).toHaveLength(3);
    expect(rejected).toEqual([
      "No matching signature found",
      "No matching signature found",
      "Missing required headers",
    ]);
  });

  it("accepts any of several secrets (rotation on the receiving side)", async () => {
    const next = generateWebhookSecret();
    inbox = createWebhookInbox({ secrets: [secret, next] });
    const url = await inbox.listen();
    expect((await post(url, "msg_n", JSON.stringify(payload("R-3")), [next])).status).toBe(200);
    expect(inbox.deliveries()).toHaveLength(1);
  });

  it("answers with a programmable status per attempt and records only the accepted attempt", async () => {
    inbox = createWebhookInbox({ secret });
    const url = await inbox.listen();
    inbox.respondWith(({ attempt }) => (attempt <= 2 ? { status: 503, headers: { "retry-after": "1" } } : 204));
    const body = JSON.stringify(payload("R-4"));
    const first = await post(url, "msg_k", body);
    expect(first.status).toBe(503);
    expect(first.headers.get("retry-after")).toBe("1");
    expect((await post(url, "msg_k", body)).status).toBe(503);
    expect(inbox.deliveries()).toHaveLength(0);
    expect((await post(url, "msg_k", body)).status).toBe(204);
    expect(inbox.deliveries()[0]?.attempt).toBe(3);
    inbox.respondWith(410);
    expect((await post(url, "msg_other", body)).status).toBe(410);
  });

  it("can hang without answering, and close() still returns", async () => {
    inbox = createWebhookInbox({ secret, respond: "hang" });
    const url = await inbox.listen();
    const attempt = post(url, "msg_h", JSON.stringify(payload("R-5"))).catch((error: unknown) => error);
    await inbox.waitUntil(() => inbox?.requests().length === 1);
    expect(inbox.requests()[0]?.status).toBeNull();
    await inbox.close();
    expect(await attempt).toBeInstanceOf(Error);
  });

  it("waitFor times out with a clear message", async () => {
    inbox = createWebhookInbox({ secret });
    await inbox.listen();
    await expect(inbox.waitFor("never", { timeoutMs: 50 })).rejects.toThrow(/timed out after 50 ms.*never/);
  });

  it("answers 405 to other methods and 413 to oversized bodies", async () => {
    inbox = createWebhookInbox({ secret, maxBodyBytes: 100 });
    const url = await inbox.listen();
    expect((await fetch(url)).status).toBe(405);
    expect((await post(url, "msg_big", JSON.stringify({ pad: "x".repeat(200) }))).status).toBe(413);
  });

  it("needs a secret", () => {
    expect(() => createWebhookInbox({})).toThrow(/secret/);
  });
});
