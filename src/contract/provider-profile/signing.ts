/**
 * Verifying a webhook under a profile's signing scheme: Standard Webhooks,
 * HMAC with a constant-time comparison, or no signature at all — each made
 * by the package's one signing module (`../signing.ts`); this file reads
 * the profile's scheme. Never throws for bad input.
 */
import { constantTimeEqual, hmacSignature, signWebhook, standardWebhookRejection } from "../signing.ts";
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
  return {
    description,
    verify(body, headers) {
      const reason = standardWebhookRejection(secret, body, headers);
      return reason === undefined ? { kind: "verified" } : { kind: "rejected", reason };
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
      const expected = `${prefix}${hmacSignature(hash, encoding, secret, signed)}`;
      // Hex digits may come in either case; base64 is case-sensitive.
      const caseOf = (text: string) => (encoding === "hex" ? text.toLowerCase() : text);
      const same = constantTimeEqual(Buffer.from(caseOf(given.trim())), Buffer.from(caseOf(expected)));
      return same
        ? { kind: "verified" }
        : { kind: "rejected", reason: `${signing.header} does not match the ${hash} HMAC` };
    },
  };
}

function assertNever(value: never): never {
  throw new Error(`unexpected signing scheme ${JSON.stringify(value)}`);
}

/** One attempt of a webhook to sign: its delivery id, the attempt's time, the exact body, the endpoint's secrets. */
export interface WebhookToSign {
  readonly id: string;
  readonly timestampSeconds: number;
  readonly body: string;
  /** Standard Webhooks signs with each (rotation); an HMAC header carries one, the first. */
  readonly secrets: readonly string[];
}

/** The request headers a signed attempt carries, by name. */
export type WebhookSigner = (attempt: WebhookToSign) => Record<string, string>;

/**
 * The sending side of a profile's scheme, compiled once: the headers an
 * attempt carries, with the delivery id in its header when the profile puts
 * it in one (a pointer puts it in the body instead).
 *
 * @example
 * const sign = createWebhookSigner({ scheme: "hmac", header: "X-Signature" }, { header: "X-Delivery-Id" });
 * sign({ id: "msg_1", timestampSeconds: 1714000000, body: "{}", secrets: ["s3cret"] });
 * // { "x-delivery-id": "msg_1", "x-signature": "…" }
 */
export function createWebhookSigner(
  signing: ProfileSigning,
  deliveryId: { readonly header: string } | { readonly pointer: string },
): WebhookSigner {
  const idHeader = "header" in deliveryId ? deliveryId.header.toLowerCase() : undefined;
  const withId = (headers: Record<string, string>, id: string): Record<string, string> =>
    idHeader === undefined || idHeader in headers ? headers : { [idHeader]: id, ...headers };
  switch (signing.scheme) {
    case "none":
      return (attempt) => withId({}, attempt.id);
    case "standard-webhooks":
      return (attempt) => {
        if (attempt.secrets.length === 0) throw new Error("signing needs at least one secret");
        return withId({ ...signWebhook(attempt) }, attempt.id);
      };
    case "hmac":
      return hmacSigner(signing, withId);
    default:
      return assertNever(signing);
  }
}

function hmacSigner(
  signing: Extract<ProfileSigning, { scheme: "hmac" }>,
  withId: (headers: Record<string, string>, id: string) => Record<string, string>,
): WebhookSigner {
  const hash = signing.hash ?? "sha256";
  const encoding = signing.encoding ?? "hex";
  const prefix = signing.prefix ?? "";
  const header = signing.header.toLowerCase();
  const timestampHeader = signing.signed === "timestamp.body" ? signing.timestampHeader?.toLowerCase() : undefined;
  return (attempt) => {
    const secret = attempt.secrets[0];
    if (secret === undefined) throw new Error("signing needs at least one secret");
    const timestamp = String(attempt.timestampSeconds);
    const signed = timestampHeader === undefined ? attempt.body : `${timestamp}.${attempt.body}`;
    const headers: Record<string, string> = {};
    if (timestampHeader !== undefined) headers[timestampHeader] = timestamp;
    headers[header] = `${prefix}${hmacSignature(hash, encoding, secret, signed)}`;
    return withId(headers, attempt.id);
  };
}
