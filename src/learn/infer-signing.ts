/**
 * Finding how a provider signs its webhooks: every known scheme is tried
 * with the secret the user gave, on a delivery as it arrived, until one
 * verifies — Standard Webhooks, or an HMAC (sha256 or sha512, hex or
 * base64, with the prefix the header shows) over the body or over
 * `<timestamp>.<body>` with the timestamp from any header that holds one.
 * Verification is the profile's own verifier, so what is found here is what
 * the harness will check.
 */
import type { ProfileSigning } from "../contract/provider-profile/schema.ts";
import { createSignatureVerifier, type FlatHeaders } from "../contract/provider-profile/signing.ts";

export interface RawDelivery {
  /** Lower-cased header names. */
  readonly headers: FlatHeaders;
  readonly body: string;
}

const HASHES = ["sha256", "sha512"] as const;
const ENCODINGS = ["hex", "base64"] as const;
/** A digest after an optional prefix such as `sha256=` or `v1,`. */
const DIGEST = /^(.*?[=,:\s])?([0-9a-fA-F]{64,128}|[A-Za-z0-9+/]{43,}={0,2})$/;

/** The header names as a provider would document them: `X-Signature`, `Jambo-Timestamp`. */
export function displayHeader(name: string): string {
  return name
    .split("-")
    .map((part) => (part.length === 0 ? part : part[0]!.toUpperCase() + part.slice(1)))
    .join("-");
}

function hmacCandidates(delivery: RawDelivery): ProfileSigning[] {
  const timestamps = Object.entries(delivery.headers)
    .filter(([, value]) => /^\d{9,13}$/.test(value) || !Number.isNaN(Date.parse(value)))
    .map(([name]) => name)
    .filter((name) => name !== "date");
  return Object.entries(delivery.headers).flatMap(([name, value]) => {
    const match = DIGEST.exec(value);
    if (match === null) return [];
    const prefix = match[1] ?? "";
    const header = displayHeader(name);
    const signed: ProfileSigning[] = [];
    for (const hash of HASHES) {
      for (const encoding of ENCODINGS) {
        const common = { scheme: "hmac", header, hash, encoding, ...(prefix === "" ? {} : { prefix }) } as const;
        signed.push({ ...common, signed: "body" });
        for (const stamp of timestamps) {
          signed.push({ ...common, signed: "timestamp.body", timestampHeader: displayHeader(stamp) });
        }
      }
    }
    return signed;
  });
}

/** The candidate schemes for a delivery, Standard Webhooks first when its headers are there. */
function candidates(delivery: RawDelivery): ProfileSigning[] {
  const standard: ProfileSigning[] = "webhook-signature" in delivery.headers ? [{ scheme: "standard-webhooks" }] : [];
  return [...standard, ...hmacCandidates(delivery)];
}

/**
 * The scheme every given delivery verifies under, and how many were tried;
 * undefined when none verifies (a wrong secret, or a scheme we do not know).
 *
 * @example
 * inferSigning([delivery], "s3cret"); // { signing: { scheme: "hmac", header: "X-Signature", … }, tried: 14 }
 */
export function inferSigning(
  deliveries: readonly RawDelivery[],
  secret: string,
): { signing: ProfileSigning | undefined; tried: number } {
  const first = deliveries[0];
  if (first === undefined) return { signing: undefined, tried: 0 };
  const tried = candidates(first);
  const signing = tried.find((scheme) => {
    const verifier = createSignatureVerifier(scheme, secret);
    return deliveries.every((delivery) => verifier.verify(delivery.body, delivery.headers).kind === "verified");
  });
  return { signing, tried: tried.length };
}
