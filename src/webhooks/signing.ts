/**
 * Standard Webhooks signing and verification, through the `standardwebhooks`
 * package so what the simulator sends is exactly what integrators' receivers
 * (using the same package) accept.
 */
import { randomBytes } from "node:crypto";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import type { CompiledProfile } from "../contract/provider-profile/compile.ts";

/** The secret prefix Standard Webhooks uses; the rest is base64 of the key bytes. */
const WEBHOOK_SECRET_PREFIX = "whsec_";

export interface SignInput {
  /** The message id (`webhook-id`), the same on every retry. */
  readonly id: string;
  /** Unix seconds of this attempt (`webhook-timestamp`). */
  readonly timestampSeconds: number;
  /** The exact body bytes that are sent. */
  readonly body: string;
  /** Every active secret; each adds one `v1,<base64>` entry (key rotation). */
  readonly secrets: readonly string[];
}

/** The three Standard Webhooks request headers (a type alias, so it passes as a header record). */
export type SignedHeaders = {
  readonly "webhook-id": string;
  readonly "webhook-timestamp": string;
  readonly "webhook-signature": string;
};

/**
 * Signs one attempt of a message with every secret.
 *
 * @example
 * const headers = signWebhook({ id: "msg_1", timestampSeconds: 1714000000, body: "{}", secrets: [secret] });
 * // headers["webhook-signature"] === "v1,…"
 */
export function signWebhook(input: SignInput): SignedHeaders {
  if (input.secrets.length === 0) throw new Error("signWebhook needs at least one secret");
  const at = new Date(input.timestampSeconds * 1000);
  const signatures = input.secrets.map((secret) => new Webhook(secret).sign(input.id, at, input.body));
  return {
    "webhook-id": input.id,
    "webhook-timestamp": String(input.timestampSeconds),
    "webhook-signature": signatures.join(" "),
  };
}

export type VerifyOutcome =
  { readonly kind: "verified"; readonly payload: unknown } | { readonly kind: "rejected"; readonly reason: string };

/**
 * Verifies a received request against any of the given secrets (the
 * receiver's side of rotation), including the ±5 minute timestamp window
 * against the real clock. Never throws for bad input.
 *
 * @example
 * const outcome = verifyWebhook(rawBody, req.headers, [secret]);
 * if (outcome.kind === "rejected") res.status(400).end();
 */
export function verifyWebhook(
  body: string,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  secrets: readonly string[],
): VerifyOutcome {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  let reason = "no secret configured";
  for (const secret of secrets) {
    try {
      // Parse ourselves: the package's JSON.parse error is not a verification error.
      new Webhook(secret).verify(body, flat, { jsonParse: false });
    } catch (error) {
      reason = error instanceof WebhookVerificationError ? error.message : String(error);
      continue;
    }
    return verifiedPayload(body);
  }
  return { kind: "rejected", reason };
}

/** A body whose signature checked out, parsed: verified, or rejected when it is not JSON. */
function verifiedPayload(body: string): VerifyOutcome {
  try {
    return { kind: "verified", payload: JSON.parse(body) as unknown };
  } catch {
    return { kind: "rejected", reason: "signature valid but the body is not JSON" };
  }
}

/** A source of secret bytes; injectable so tests can make secrets reproducible. */
export type SecretBytes = (length: number) => Uint8Array;

/**
 * A new `whsec_` secret: 24–64 random bytes (default 32), base64 encoded.
 *
 * @example
 * const secret = generateWebhookSecret(); // "whsec_…"
 */
export function generateWebhookSecret(length = 32, bytes: SecretBytes = randomBytes): string {
  if (!Number.isInteger(length) || length < 24 || length > 64) {
    throw new RangeError("a webhook secret has 24 to 64 bytes");
  }
  return `${WEBHOOK_SECRET_PREFIX}${Buffer.from(bytes(length)).toString("base64")}`;
}

/** True for `whsec_` + base64 of 24–64 bytes. */
export function isWebhookSecret(value: string): boolean {
  if (!value.startsWith(WEBHOOK_SECRET_PREFIX)) return false;
  const encoded = value.slice(WEBHOOK_SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return false;
  const length = Buffer.from(encoded, "base64").length;
  return length >= 24 && length <= 64;
}

/** The profile's verifier with each secret in turn (rotation), as a Standard Webhooks check reports. */
export function verifyDialect(
  provider: CompiledProfile,
  secrets: readonly string[],
  body: string,
  headers: Readonly<Record<string, string>>,
): VerifyOutcome {
  let reason = "no secret configured";
  for (const secret of secrets) {
    const outcome = provider.verifier(secret).verify(body, headers);
    if (outcome.kind === "rejected") {
      reason = outcome.reason;
      continue;
    }
    return verifiedPayload(body);
  }
  return { kind: "rejected", reason };
}
