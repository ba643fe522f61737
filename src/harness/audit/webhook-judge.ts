/**
 * Judges an order's webhook for one final status: it arrived, it is signed
 * with the configured secret, and it agrees with the lookup on every field
 * the two bodies share. Used by the end-of-run audit (every order) and by the
 * "await webhook" step (one order, mid-run).
 */
import { toCents } from "../../contract/money.ts";
import type { OrderFields } from "../../contract/provider-profile/compile.ts";
import type { FoundLookup } from "../commands/order-io.ts";
import type { RunContext } from "../run-context.ts";
import { StrictWebhookPayload } from "../strict-schemas.ts";

/** Fields a webhook and a lookup may both carry but that legitimately differ. */
const NOT_COMPARED = new Set(["type", "final", "timestamp", "history", "createdAt", "updatedAt", "balance"]);

/**
 * Waits for the final webhook of `final.status` and judges it. Returns true
 * when a matching webhook was judged (for coverage tallies).
 */
/** Deliveries that named the order but not an event the profile's filter takes: how many, and why. */
function setAsideText(real: RunContext, values: readonly unknown[]): string {
  if (values.length === 0) return "";
  const { pointer, values: taken } = real.provider.resolved.event;
  const seen = [...new Set(values.map((value) => JSON.stringify(value) ?? "nothing"))].join(", ");
  return `; ${values.length} delivery(ies) naming it arrived, set aside by the profile's event filter: ${pointer} must be one of [${taken.join(", ")}], they carried ${seen}`;
}

export async function judgeFinalWebhook(
  real: RunContext,
  reference: string,
  final: FoundLookup,
  statusName: string,
): Promise<boolean> {
  const receiver = real.receiver;
  if (receiver === undefined) return false;
  let wait = await receiver.waitForFinal(reference, real.timeouts.webhookMs);
  if (wait.kind === "rejected") {
    real.checker.that(
      "webhook_signature_valid",
      false,
      `${reference}: a webhook failed verification as ${receiver.signing} (${wait.rejection.reason}); headers ${JSON.stringify(pickSignatureHeaders(wait.rejection.headers))}`,
    );
    return false;
  }
  real.checker.that(
    "webhook_delivered",
    wait.kind === "delivered",
    () =>
      `${reference}: final status ${final.status} (${statusName}) but no webhook within ${real.timeouts.webhookMs} ms${setAsideText(real, receiver.setAsideFor(reference))}`,
  );
  if (wait.kind !== "delivered") return false;
  real.checker.tally("webhook_delivered", statusName);
  real.checker.tally("webhook_signature_valid", statusName);
  const statusOf = (payload: unknown) => real.provider.readOrder("webhook", payload).status;
  if (statusOf(wait.delivery.payload) !== final.status) {
    // A reversal sends a second final webhook; give a later one a moment to arrive.
    const later = await receiver.waitForFinal(
      reference,
      Math.min(1000, Math.ceil(real.timeouts.webhookMs / 4)),
      (delivery) => statusOf(delivery.payload) === final.status,
    );
    if (later.kind === "delivered") wait = later;
  }
  const delivery = wait.delivery;
  const strict = real.profile === "strict";
  // The payload's shape is our spec's; the interface does not show it (§6).
  const parsed = strict ? StrictWebhookPayload.safeParse(delivery.payload) : { success: true };
  real.checker.that(
    "webhook_matches_lookup",
    parsed.success,
    () => `${reference}: the webhook body does not match the webhook schema: ${delivery.body.slice(0, 200)}`,
  );
  const webhook = strict
    ? (delivery.payload as Record<string, unknown>)
    : comparedFields(real.provider.readOrder("webhook", delivery.payload));
  const lookup = strict
    ? (final.body as object as Record<string, unknown>)
    : comparedFields(real.provider.readOrder("lookup", final.body));
  const compared = strict ? sharedFieldNames(webhook, lookup) : (["id", "reference", "status"] as const);
  const mismatches = fieldMismatches(compared, webhook, lookup);
  real.checker.that(
    "webhook_matches_lookup",
    mismatches.length === 0,
    () => `${reference}: the webhook disagrees with GET /v1/airtime/${reference}: ${mismatches.join(", ")}`,
    // Only the fields compared: the rest legitimately differs and would bury the mismatch.
    () => ({
      expectedLabel: `GET /v1/airtime/${reference}`,
      actualLabel: `webhook ${delivery.webhookId}`,
      expected: pick(lookup, compared),
      actual: pick(webhook, compared),
    }),
  );
  real.checker.tally("webhook_matches_lookup", statusName);
  return true;
}

/** What the interface lets a webhook and a lookup be compared on (§3 rule 3), as read through the profile. */
function comparedFields(fields: OrderFields): Record<string, unknown> {
  return { id: fields.id, reference: fields.reference, status: fields.status };
}

/** Every field both bodies carry, and the id, reference and status even when one side lacks them. */
function sharedFieldNames(webhook: Readonly<Record<string, unknown>>, lookup: object): string[] {
  const names = new Set(["id", "reference", "status"]);
  for (const name of Object.keys(webhook)) if (Object.hasOwn(lookup, name)) names.add(name);
  return [...names].filter((name) => !NOT_COMPARED.has(name));
}

/** Each field that differs (money in cents), as `name webhook ≠ lookup`. */
function fieldMismatches(names: readonly string[], webhook: object, lookup: object): string[] {
  const a = webhook as Readonly<Record<string, unknown>>;
  const b = lookup as Readonly<Record<string, unknown>>;
  return names.flatMap((name) => {
    const same =
      typeof a[name] === "number" && typeof b[name] === "number" && name === "amount"
        ? toCents(a[name]) === toCents(b[name])
        : JSON.stringify(a[name]) === JSON.stringify(b[name]);
    return same ? [] : [`${name} ${JSON.stringify(a[name])} ≠ ${JSON.stringify(b[name])}`];
  });
}

function pick(body: object, names: readonly string[]): Record<string, unknown> {
  const from = body as Readonly<Record<string, unknown>>;
  return Object.fromEntries(names.filter((name) => Object.hasOwn(from, name)).map((name) => [name, from[name]]));
}

/** The headers a signing scheme uses (ids, timestamps, signatures), whatever the scheme names them. */
function pickSignatureHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => /sig|timestamp|webhook-id|delivery/i.test(name)),
  );
}
