/**
 * The webhooks' side of signing: the Standard Webhooks functions (made in
 * `contract/signing.ts`, the package's one signing module) under the names
 * the webhook feature and the public API have always used, and verifying a
 * request in a provider's dialect with each secret in turn.
 */
import type { CompiledProfile } from "../contract/provider-profile/compile.ts";
import { verifiedPayload, type VerifyOutcome } from "../contract/signing.ts";

export {
  generateWebhookSecret,
  isWebhookSecret,
  type SignInput,
  signWebhook,
  type VerifyOutcome,
  verifyWebhook,
} from "../contract/signing.ts";

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
