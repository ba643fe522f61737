/**
 * Every signature the package makes or checks, and its one constant-time
 * comparison: Standard Webhooks through the `standardwebhooks` package (so
 * what the simulator sends is exactly what integrators' receivers using the
 * same package accept), HMAC through node:crypto, and the comparison that
 * bearer tokens, API keys and HMAC signatures are checked with. It sits in
 * the innermost layer so the domain, the store, the HTTP layer and the
 * provider profiles all reach the same code.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { Webhook, WebhookVerificationError } from "standardwebhooks";

/**
 * True when both byte strings are equal, in time independent of where they
 * differ; false at once for different lengths (a length is not secret where
 * this is called with digests or signatures of a fixed size).
 */
export function constantTimeEqual(given: Uint8Array, expected: Uint8Array): boolean {
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function sha256(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}

/**
 * Compares two secrets (tokens, API keys) in constant time: both are hashed
 * to equal-length digests first, which also hides the secret's length.
 */
export function secretsEqual(given: string, expected: string): boolean {
  return constantTimeEqual(sha256(given), sha256(expected));
}

export type HmacHash = "sha1" | "sha256" | "sha512";
export type HmacEncoding = "hex" | "base64";

/** The HMAC of `message` under `secret`, encoded as the provider sends it. */
export function hmacSignature(hash: HmacHash, encoding: HmacEncoding, secret: string, message: string): string {
  return createHmac(hash, secret).update(message).digest(encoding);
}

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
 * Why a Standard Webhooks request does not verify under `secret` (headers
 * with lower-cased names), or undefined when it does: the signature and
 * the ±5 minute timestamp window against the real clock. The body is not
 * parsed here; a signature covers bytes, whatever they are.
 */
export function standardWebhookRejection(
  secret: string,
  body: string,
  headers: Readonly<Record<string, string>>,
): string | undefined {
  try {
    new Webhook(secret).verify(body, headers, { jsonParse: false });
    return undefined;
  } catch (error) {
    return error instanceof WebhookVerificationError ? error.message : String(error);
  }
}

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
    const rejection = standardWebhookRejection(secret, body, flat);
    if (rejection === undefined) return verifiedPayload(body);
    reason = rejection;
  }
  return { kind: "rejected", reason };
}

/** A body whose signature checked out, parsed: verified, or rejected when it is not JSON. */
export function verifiedPayload(body: string): VerifyOutcome {
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
