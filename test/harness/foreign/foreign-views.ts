/**
 * How the foreign provider writes an order in its lookup and its webhooks:
 * its own field names, money as a decimal string, the status as a word.
 */
import type { ForeignOrder, StatusWord } from "./foreign-ledger.ts";

/** Cents as the provider writes money: a decimal string with two places ("150.00"). */
export function money(cents: number): string {
  return (cents / 100).toFixed(2);
}

export function orderView(order: ForeignOrder, status: StatusWord = order.status): Record<string, unknown> {
  return {
    transactionId: order.id,
    ref: order.input.reference,
    status,
    amount: money(order.input.amountCents),
    currency: order.input.currency,
    msisdn: order.input.account,
    network: order.input.service,
    shortcode: order.input.shortcode,
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
  };
}
