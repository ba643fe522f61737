import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { generateWebhookSecret, isWebhookSecret, signWebhook, verifyWebhook } from "../../src/webhooks/signing.ts";

const VECTOR = {
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
};

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe("signing", () => {
  it("reproduces the Standard Webhooks test vector", () => {
    const headers = signWebhook({
      id: VECTOR.id,
      timestampSeconds: VECTOR.timestamp,
      body: VECTOR.body,
      secrets: [VECTOR.secret],
    });
    expect(headers["webhook-signature"]).toBe(VECTOR.signature);
    expect(headers["webhook-id"]).toBe(VECTOR.id);
    expect(headers["webhook-timestamp"]).toBe("1614265330");
  });

  it("adds one v1 signature per secret, and the package accepts each secret alone", () => {
    const old = generateWebhookSecret();
    const next = generateWebhookSecret();
    const body = JSON.stringify({ hello: "world" });
    const headers = signWebhook({ id: "msg_rot", timestampSeconds: nowSeconds(), body, secrets: [old, next] });
    expect(headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(new Webhook(old).verify(body, { ...headers })).toEqual({ hello: "world" });
    expect(new Webhook(next).verify(body, { ...headers })).toEqual({ hello: "world" });
  });

  it("verification fails for a wrong secret, a tampered body, an old timestamp and missing headers", () => {
    const secret = generateWebhookSecret();
    const body = '{"a":1}';
    const headers = signWebhook({ id: "msg_x", timestampSeconds: nowSeconds(), body, secrets: [secret] });
    expect(verifyWebhook(body, headers, [secret])).toEqual({ kind: "verified", payload: { a: 1 } });
    expect(verifyWebhook(body, headers, [generateWebhookSecret()]).kind).toBe("rejected");
    expect(verifyWebhook('{"a":2}', headers, [secret]).kind).toBe("rejected");
    const stale = signWebhook({ id: "msg_x", timestampSeconds: nowSeconds() - 301, body, secrets: [secret] });
    expect(verifyWebhook(body, stale, [secret])).toEqual({ kind: "rejected", reason: "Message timestamp too old" });
    const { "webhook-signature": _dropped, ...missing } = headers;
    expect(verifyWebhook(body, missing, [secret])).toEqual({ kind: "rejected", reason: "Missing required headers" });
  });

  it("a valid signature over a body that is not JSON is still rejected", () => {
    const secret = generateWebhookSecret();
    const headers = signWebhook({ id: "msg_y", timestampSeconds: nowSeconds(), body: "not json", secrets: [secret] });
    expect(verifyWebhook("not json", headers, [secret]).kind).toBe("rejected");
  });

  it("generates whsec_ secrets of 24–64 bytes and refuses other sizes", () => {
    for (const length of [24, 32, 64]) {
      const secret = generateWebhookSecret(length);
      expect(isWebhookSecret(secret)).toBe(true);
      expect(Buffer.from(secret.slice("whsec_".length), "base64")).toHaveLength(length);
    }
    expect(() => generateWebhookSecret(16)).toThrow(RangeError);
    expect(() => generateWebhookSecret(65)).toThrow(RangeError);
    expect(isWebhookSecret(VECTOR.secret)).toBe(true);
    expect(isWebhookSecret("whsec_c2hvcnQ=")).toBe(false);
    expect(isWebhookSecret("sk_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")).toBe(false);
  });

  it("injected bytes make a secret reproducible", () => {
    const zeros = (n: number) => new Uint8Array(n);
    expect(generateWebhookSecret(24, zeros)).toBe(`whsec_${"A".repeat(32)}`);
  });
});
