import { createHmac } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, test } from "vitest";
import { compileProfile } from "../../../src/contract/provider-profile/compile.ts";
import { parseProviderProfile } from "../../../src/contract/provider-profile/load.ts";
import type { ProviderProfile } from "../../../src/contract/provider-profile/schema.ts";

function profileOf(text: string): ProviderProfile {
  const result = parseProviderProfile(text);
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.profile;
}

const ACME = compileProfile(
  profileOf(`profile: 1
bodies:
  order: { id: /data/transactionId, reference: /data/reference, status: /data/statusCode }
  lookup: { id: /data/transactionId, reference: /data/reference, status: /data/status, amount: /data/amount }
  webhook: { id: /payload/transactionId, reference: /payload/reference, status: /payload/status }
  balance: { amount: /data/available }
  error: { code: /error/code }
money: string
statuses:
  values: word
  table:
    - { code: 0, word: PENDING, class: pending, message: Pending }
    - { code: 20, word: SUCCESS, class: success, message: Success }
    - { code: 2, word: FAILED, class: failed, message: Failed }
    - { code: 8, word: REVERSED, class: reversed, message: Reversed }
  transitions: [[pending, success], [pending, failed], [SUCCESS, REVERSED]]
webhooks:
  event: { pointer: /event, values: [airtime.completed, airtime.reversed] }
  deliveryId: { pointer: /deliveryId }
`),
);

describe("a compiled profile reads bodies through its pointers", () => {
  test("the send-airtime answer, the lookup and the webhook, each at its own pointers", () => {
    expect(ACME.readOrder("order", { data: { transactionId: "TX1", reference: "R-1", statusCode: 0 } })).toMatchObject({
      id: "TX1",
      reference: "R-1",
      status: 0,
    });
    expect(
      ACME.readOrder("lookup", {
        data: { transactionId: "TX1", reference: "R-1", status: "SUCCESS", amount: "10.50" },
      }),
    ).toMatchObject({ id: "TX1", reference: "R-1", status: 20, amountCents: 1050 });
    expect(ACME.readOrder("webhook", { payload: { reference: "R-1", status: "REVERSED" } })).toMatchObject({
      reference: "R-1",
      status: 8,
      id: undefined,
    });
  });

  test("a word the table does not know is no status; the send-airtime answer's status must be a number", () => {
    expect(ACME.readOrder("lookup", { data: { status: "DONE" } }).status).toBeUndefined();
    expect(ACME.readOrder("order", { data: { statusCode: "PENDING" } }).status).toBeUndefined();
    expect(ACME.readOrder("order", { data: { statusCode: "0" } }).status).toBe(0);
  });

  test("string and number money, the balance and the error code", () => {
    expect(ACME.readBalanceCents({ data: { available: "9992151.30" } })).toBe(999_215_130);
    expect(ACME.readBalanceCents({ data: { available: 12.5 } })).toBe(1250);
    expect(ACME.readBalanceCents({ data: { available: "lots" } })).toBeUndefined();
    expect(ACME.readErrorCode({ success: false, error: { code: "idempotency_payload_mismatch" } })).toBe(
      "idempotency_payload_mismatch",
    );
    expect(ACME.readErrorCode({ code: "idempotency_payload_mismatch" })).toBeUndefined();
  });

  test("the status table: classes, finals, refunds and the legal moves", () => {
    const { statuses } = ACME;
    expect(statuses.classOf(8)).toBe("reversed");
    expect([0, 20, 2, 8].map((code) => statuses.isFinal(code))).toEqual([false, true, true, true]);
    expect([20, 2, 8].map((code) => statuses.refunds(code))).toEqual([false, true, true]);
    expect(statuses.isAllowedMove(0, 20)).toBe(true);
    expect(statuses.isAllowedMove(20, 8)).toBe(true);
    expect(statuses.isAllowedMove(20, 0)).toBe(false);
    expect(statuses.isAllowedMove(2, 20)).toBe(false);
    expect(statuses.isAllowedMove(20, 20)).toBe(true);
    // Observed moves may skip a step: pending, then reversed, with the success unseen in between.
    expect(statuses.isAllowedMove(0, 8)).toBe(true);
    expect(statuses.isAllowedMove(8, 0)).toBe(false);
    expect(statuses.written(20)).toBe("SUCCESS");
    expect(statuses.nameOf(2)).toBe("Failed");
  });

  test("the webhook event filter and the delivery id from the body", () => {
    expect(ACME.isStatusEvent({ event: "airtime.completed" })).toBe(true);
    expect(ACME.isStatusEvent({ event: "account.updated" })).toBe(false);
    expect(ACME.deliveryId({}, { deliveryId: "d-1" })).toBe("d-1");
  });

  test("the default profile reads our spec's bodies", () => {
    const spec = compileProfile();
    expect(spec.readOrder("lookup", { id: "x", reference: "r", status: 20, amount: 10 })).toMatchObject({
      id: "x",
      status: 20,
      amountCents: 1000,
    });
    expect(spec.readErrorCode({ code: "validation_failed" })).toBe("validation_failed");
    expect(spec.isStatusEvent({ type: "airtime.status" })).toBe(true);
    expect(spec.deliveryId({ "webhook-id": "msg_1" }, {})).toBe("msg_1");
    expect(spec.statuses.isAllowedMove(20, 8)).toBe(true);
    expect(spec.statuses.isAllowedMove(8, 20)).toBe(false);
    expect(spec.given).toMatchObject({ statuses: false, signing: false, domain: false });
  });
});

describe("webhook signatures, verified against what a third-party signer produced", () => {
  const body = JSON.stringify({ event: "airtime.completed", payload: { reference: "R-1", status: "SUCCESS" } });

  test("standard-webhooks: the standardwebhooks package's signature verifies, a tampered body does not", () => {
    const secret = `whsec_${Buffer.from("a-test-secret-of-32-bytes-long!!").toString("base64")}`;
    const at = new Date();
    const headers = {
      "webhook-id": "msg_1",
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": new Webhook(secret).sign("msg_1", at, body),
    };
    const verifier = compileProfile().verifier(secret);
    expect(verifier.verify(body, headers)).toEqual({ kind: "verified" });
    expect(verifier.verify(`${body} `, headers).kind).toBe("rejected");
  });

  test.each([
    ["sha256", "hex", "sha256=", "body"],
    ["sha512", "base64", "", "body"],
    ["sha256", "base64", "v1=", "timestamp.body"],
  ] as const)("hmac %s %s (prefix %j, signed %s)", (hash, encoding, prefix, signed) => {
    const profile = compileProfile(
      profileOf(
        `profile: 1\nwebhooks:\n  signing: { scheme: hmac, header: X-Signature, hash: ${hash}, encoding: ${encoding}, prefix: "${prefix}", signed: ${signed}, timestampHeader: X-Timestamp }\n`,
      ),
    );
    const timestamp = "1764150000";
    const message = signed === "body" ? body : `${timestamp}.${body}`;
    const signature = `${prefix}${createHmac(hash, "s3cret").update(message).digest(encoding)}`;
    const headers = { "x-signature": signature, "x-timestamp": timestamp };
    const verifier = profile.verifier("s3cret");
    expect(verifier.verify(body, headers)).toEqual({ kind: "verified" });
    expect(verifier.verify(body, { ...headers, "x-signature": signature.slice(0, -2) }).kind).toBe("rejected");
    expect(profile.verifier("other").verify(body, headers).kind).toBe("rejected");
    expect(verifier.verify(body, {}).kind).toBe("rejected");
    if (signed === "timestamp.body") {
      expect(verifier.verify(body, { ...headers, "x-timestamp": "1764150001" }).kind).toBe("rejected");
    }
  });

  test("none: every delivery is accepted unsigned", () => {
    const profile = compileProfile(profileOf(`profile: 1\nwebhooks:\n  signing: { scheme: none }\n`));
    expect(profile.verifier(undefined).verify(body, {})).toEqual({ kind: "unsigned" });
  });
});
