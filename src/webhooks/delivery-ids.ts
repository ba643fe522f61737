/**
 * Webhook ids derived from the change they announce rather than drawn at
 * random: a change announced again (its step re-run after a process died)
 * names the same message and the same delivery, so the delivery store keeps
 * one of each, and a receiver deduplicating on `webhook-id` sees one message.
 *
 * An order's change is named by its version, the history length it left
 * (each change appends one entry): `ord_4m8q…` at version 2 sends the
 * message `msg_4m8q…v2` in the delivery `dlv_4m8q…v2`.
 */

/** The part of an id after its prefix: `ord_4m8q` → `4m8q`. */
function bodyOf(id: string): string {
  return id.slice(id.indexOf("_") + 1);
}

/** The `webhook-id` of the message announcing the order's change to `version`. */
export function statusMessageId(orderId: string, version: number): string {
  return `msg_${bodyOf(orderId)}v${version}`;
}

/** The delivery of a status message (its duplicates add `d1`, `d2`, …). */
export function deliveryIdOf(messageId: string): string {
  return `dlv_${bodyOf(messageId)}`;
}

/** The stale follow-up's message or delivery id, from the one it follows. */
export function staleFollowUpId(id: string): string {
  return `${id}s`;
}
