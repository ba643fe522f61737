/**
 * The prose of a dialect's OpenAPI document, written from its compiled
 * profile: where each body keeps its fields, the amounts it accepts, its
 * statuses, its errors and how its webhooks are signed. Nothing here
 * speaks of our spec's bodies, problem+json or signing unless the profile
 * is ours in those respects.
 */
import type { CompiledProfile } from "../provider-profile/compile.ts";
import type { ErrorAnswers } from "../provider-profile/error-answers.ts";
import type { ProfileSigning } from "../provider-profile/schema.ts";

/** How the webhook is signed, in one paragraph. */
export function describeSigning(signing: ProfileSigning): string {
  if (signing.scheme === "none") return "Webhooks are not signed.";
  if (signing.scheme === "standard-webhooks") {
    return (
      "Signed the Standard Webhooks way: `webhook-signature` holds `v1,<base64>` HMAC-SHA256 signatures of " +
      "`<webhook-id>.<webhook-timestamp>.<raw body>`, one per active secret."
    );
  }
  const over = signing.signed === "timestamp.body" ? `\`<${signing.timestampHeader}>.<raw body>\`` : "the raw body";
  const digest = `HMAC-${(signing.hash ?? "sha256").toUpperCase()} in ${signing.encoding ?? "hex"}`;
  const prefix = signing.prefix === undefined || signing.prefix === "" ? "" : `, after \`${signing.prefix}\``;
  return `Signed with the endpoint's secret: \`${signing.header}\` holds the ${digest} of ${over}${prefix}.`;
}

function statusLines(profile: CompiledProfile): string[] {
  const words = profile.resolved.statusValues === "word";
  return [...profile.statuses.table.values()].map((definition) => {
    const written = profile.statuses.written(definition.code);
    const word = words && typeof written === "string" ? ` \`${written}\`` : "";
    return `- \`${definition.code}\`${word} ${profile.statuses.nameOf(definition.code)} (${profile.statuses.classOf(definition.code) ?? definition.class})`;
  });
}

/** The document's description: the dialect as the simulator serves it. */
export function describeDialect(profile: CompiledProfile, answers: ErrorAnswers): string {
  const { domain, resolved } = profile;
  const money = resolved.money === "string" ? 'decimal strings (`"150.00"`)' : "numbers";
  const places = domain.decimals === 0 ? "whole shillings" : `at most ${domain.decimals} decimals`;
  const written = resolved.statusValues === "word" ? "words" : "numbers";
  const deliveryId =
    "header" in resolved.deliveryId
      ? `the \`${resolved.deliveryId.header}\` header`
      : `\`${resolved.deliveryId.pointer}\``;
  return [
    `The airtime top-up API in the dialect of ${profile.name}: place an order, look it up by reference, read the ` +
      "balance. Each answer holds the members its schema lists and nothing more. Orders complete asynchronously: " +
      "the first answer is usually pending; the final status arrives by webhook and from the lookup.",
    "",
    "## Orders",
    "",
    `Amounts are ${domain.minAmount}–${domain.maxAmount} ${domain.currency}, ${places}; money is written as ${money}. ` +
      "A retry with the same `Idempotency-Key` and payload answers 200 with the same id and the header " +
      "`Idempotent-Replayed: true`; the same key with another payload answers " +
      `${answers.statusFor("idempotency_payload_mismatch")} \`${answers.codeFor("idempotency_payload_mismatch")}\`.`,
    "",
    "## Statuses",
    "",
    `The send-airtime answer writes the status as a number; the lookup and the webhook as ${written}.`,
    "",
    ...statusLines(profile),
    "",
    "## Errors",
    "",
    `Errors are ${answers.contentType} bodies with the code at \`${resolved.bodies.error.code}\` and the message at ` +
      `\`${resolved.bodies.error.message}\`. Every operation needs \`Authorization: Bearer <token>\`.`,
    "",
    "## Webhooks",
    "",
    `Order-status events carry \`${resolved.event.pointer}\` set to one of ${resolved.event.values.map((value) => `\`${value}\``).join(", ")}; ` +
      `the delivery id, the same on every retry, is in ${deliveryId}. ${describeSigning(resolved.signing)}`,
  ].join("\n");
}
