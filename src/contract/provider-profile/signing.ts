/**
 * Verifying a webhook under a profile's signing scheme: Standard Webhooks
 * through the `standardwebhooks` package (what providers using that scheme
 * sign with), HMAC through node:crypto with a constant-time comparison, or
 * no signature at all. Never throws for bad input.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import type { ProfileSigning } from "./schema.ts";

export type SignatureOutcome =
  | { readonly kind: "verified" }
  | { readonly kind: "unsigned" }
  | { readonly kind: "rejected"; readonly reason: string };

/** Headers with lower-cased names, as node:http gives them. */
export type FlatHeaders = Readonly<Record<string, string>>;

export interface SignatureVerifier {
  /** e.g. "hmac sha256 hex in X-Signature", for reports. */
  readonly description: string;
  verify(body: string, headers: FlatHeaders): SignatureOutcome;
}

/**
 * @example
 * const verifier = createSignatureVerifier({ scheme: "hmac", header: "X-Signature" }, "s3cret");
 * verifier.verify(rawBody, flatHeaders); // { kind: "verified" } or { kind: "rejected", reason }
 */
export function createSignatureVerifier(signing: ProfileSigning, secret: string | undefined): SignatureVerifier {
  switch (signing.scheme) {
    case "none":
      return { description: "unsigned", verify: () => ({ kind: "unsigned" }) };
    case "standard-webhooks":
      return standardWebhooksVerifier(secret);
    case "hmac":
      return hmacVerifier(signing, secret);
    default:
      return assertNever(signing);
  }
}

function standardWebhooksVerifier(secret: string | undefined): SignatureVerifier {
  const description = "Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature)";
  if (secret === undefined) return { description, verify: () => ({ kind: "rejected", reason: "no secret given" }) };
  const webhook = new Webhook(secret);
  return {
    description,
    verify(body, headers) {
      try {
        webhook.verify(body, headers);
        return { kind: "verified" };
      } catch (error) {
        return {
          kind: "rejected",
          reason: error instanceof WebhookVerificationError ? error.message : String(error),
        };
      }
    },
  };
}

function hmacVerifier(
  signing: Extract<ProfileSigning, { scheme: "hmac" }>,
  secret: string | undefined,
): SignatureVerifier {
  const hash = signing.hash ?? "sha256";
  const encoding = signing.encoding ?? "hex";
  const prefix = signing.prefix ?? "";
  const header = signing.header.toLowerCase();
  const timestampHeader = signing.timestampHeader?.toLowerCase();
  const withTimestamp = signing.signed === "timestamp.body";
  const description = `hmac ${hash} ${encoding} in ${signing.header}${withTimestamp ? ` over ${signing.timestampHeader}.body` : ""}`;
  return {
    description,
    verify(body, headers) {
      if (secret === undefined) return { kind: "rejected", reason: "no secret given" };
      const given = headers[header];
      if (given === undefined) return { kind: "rejected", reason: `no ${signing.header} header` };
      let signed = body;
      if (withTimestamp) {
        const timestamp = timestampHeader === undefined ? undefined : headers[timestampHeader];
        if (timestamp === undefined) return { kind: "rejected", reason: `no ${signing.timestampHeader} header` };
        signed = `${timestamp}.${body}`;
      }
      const expected = Buffer.from(`${prefix}${createHmac(hash, secret).update(signed).digest(encoding)}`);
      const actual = Buffer.from(given.trim());
      // Hex digits may come in either case; base64 is case-sensitive.
      const comparable = encoding === "hex" ? Buffer.from(given.trim().toLowerCase()) : actual;
      const same =
        comparable.length === expected.length &&
        timingSafeEqual(comparable, encoding === "hex" ? Buffer.from(expected.toString().toLowerCase()) : expected);
      return same
        ? { kind: "verified" }
        : { kind: "rejected", reason: `${signing.header} does not match the ${hash} HMAC` };
    },
  };
}

function assertNever(value: never): never {
  throw new Error(`unexpected signing scheme ${JSON.stringify(value)}`);
}
