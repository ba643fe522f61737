/**
 * The webhook body, built from a stored status change: the provider's flat
 * shape (`WebhookPayloadSchema`), amounts in KES, the time on the simulator
 * clock.
 */
import { isoTime } from "../contract/iso-time.ts";
import { fromCents } from "../contract/money.ts";
import type { StatusTable } from "../contract/status-codes.ts";
import { isFinalStatus } from "../contract/status-codes.ts";
import type { WebhookPayload } from "../contract/webhook-schemas.ts";
import type { Order, StatusHistoryEntry, Wallet } from "../domain/model.ts";
import type { StatusChange } from "../domain/service-types.ts";

/**
 * The body for the status an order just reached.
 *
 * @example
 * const body = JSON.stringify(buildWebhookPayload(change));
 */
export function buildWebhookPayload(change: StatusChange): WebhookPayload {
  return payloadAt(
    change.order,
    { status: change.order.status, message: change.order.message, at: change.order.updatedAt },
    change.wallet,
    change.final,
  );
}

/**
 * The latest non-final status the order went through before `change` (for a
 * deliberately out-of-order message); Pending when the history has none.
 */
export function staleEntryBefore(change: StatusChange, table: StatusTable): StatusHistoryEntry {
  const earlier = change.order.history.filter((entry) => !isFinalStatus(table, entry.status));
  return earlier.at(-1) ?? { status: 0, message: "Pending", at: change.order.createdAt };
}

/** The body for an earlier status of the order, as it would have been sent then. */
export function buildStalePayload(change: StatusChange, entry: StatusHistoryEntry): WebhookPayload {
  return payloadAt(change.order, entry, change.wallet, false);
}

function payloadAt(order: Order, entry: StatusHistoryEntry, wallet: Wallet, final: boolean): WebhookPayload {
  return {
    type: "airtime.status",
    id: order.id,
    reference: order.reference,
    status: entry.status,
    message: entry.message,
    final,
    service: order.service,
    account: order.account,
    amount: fromCents(order.amountCents),
    balance: fromCents(wallet.balanceCents),
    currency: order.currency,
    shortcode: order.shortcode,
    timestamp: isoTime(entry.at),
  };
}
