/**
 * `listen --forward-to` for a provider's dialect: the forwarder checks the
 * profile's HMAC signature and passes the profile's own headers on with the
 * same body bytes, so a handler written for the provider verifies them.
 */
import { createHmac } from "node:crypto";
import { readFile } from "node:fs/promises";
import { expect, test } from "vitest";
import { compileProfile } from "../../src/contract/provider-profile/compile.ts";
import { parseProviderProfile } from "../../src/contract/provider-profile/load.ts";
import { createWebhookSigner } from "../../src/contract/provider-profile/signing.ts";
import { createWebhookForwarder } from "../../src/webhooks/forwarder.ts";
import { startRecordingReceiver } from "../support/recording-receiver.ts";

const SECRET = "foreign-shared-secret";

test("the forwarder verifies the profile's HMAC and passes its headers on with the same body", async () => {
  const loaded = parseProviderProfile(
    await readFile(new URL("../harness/foreign/foreign-profile.yaml", import.meta.url), "utf8"),
  );
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  const provider = compileProfile(loaded.profile);
  const handler = await startRecordingReceiver();
  const { received } = handler;
  const forwarder = createWebhookForwarder({
    target: handler.url,
    secrets: [SECRET],
    provider,
  });
  try {
    const url = await forwarder.listen();
    const sign = createWebhookSigner(provider.resolved.signing, provider.resolved.deliveryId);
    const body = JSON.stringify({ event: "airtime.completed", data: { transactionId: "TX1", ref: "R-000001" } });
    const signed = sign({ id: "dlv_1", timestampSeconds: Math.floor(Date.now() / 1000), body, secrets: [SECRET] });
    const forged = { ...signed, "x-signature": "sha256=00" };
    for (const headers of [signed, forged]) {
      const answer = await fetch(url, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body,
      });
      expect(answer.status).toBe(204);
    }
    expect(forwarder.attempts().map((attempt) => [attempt.webhookId, attempt.verification.kind])).toEqual([
      ["dlv_1", "verified"],
      ["dlv_1", "rejected"],
    ]);
    const first = received[0];
    expect(first?.body).toBe(body);
    const timestamp = String(first?.headers["x-timestamp"]);
    const expected = `sha256=${createHmac("sha256", SECRET).update(`${timestamp}.${body}`).digest("hex")}`;
    expect(first?.headers["x-signature"]).toBe(expected);
    expect(first?.headers["x-delivery-id"]).toBe("dlv_1");
  } finally {
    await forwarder.close();
    await handler.close();
  }
});
