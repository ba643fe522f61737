/**
 * Domain records → API bodies: KES numbers instead of cents, ISO timestamps
 * instead of clock milliseconds. One place, so every endpoint agrees.
 */
import type { AdminCustomer, AdminOrder } from "../contract/admin-schemas.ts";
import { isoTime as iso } from "../contract/iso-time.ts";
import { fromCents } from "../contract/money.ts";
import type {
  BalanceResponse,
  FailedOrderResponse,
  SendAirtimeResponse,
  TransactionStatusResponse,
} from "../contract/public-schemas.ts";
import { BALANCE_OK_STATUS, INSUFFICIENT_BALANCE_STATUS } from "../contract/status-codes.ts";
import type { Customer, Order, Wallet } from "../domain/model.ts";

export function presentOrder(order: Order): SendAirtimeResponse {
  return { id: order.id, reference: order.reference, status: order.status, message: order.message };
}

export function presentInsufficient(reference: string): FailedOrderResponse {
  return {
    reference,
    status: INSUFFICIENT_BALANCE_STATUS,
    message: "Insufficient balance",
    code: "insufficient_balance",
  };
}

export function presentTransaction(order: Order): TransactionStatusResponse {
  return {
    id: order.id,
    reference: order.reference,
    status: order.status,
    message: order.message,
    service: order.service,
    account: order.account,
    amount: fromCents(order.amountCents),
    currency: order.currency,
    shortcode: order.shortcode,
    createdAt: iso(order.createdAt),
    updatedAt: iso(order.updatedAt),
    history: order.history.map((entry) => ({ status: entry.status, message: entry.message, at: iso(entry.at) })),
  };
}

export function presentAdminOrder(order: Order): AdminOrder {
  return { ...presentTransaction(order), customerId: order.customerId, idempotencyKey: order.idempotencyKey ?? null };
}

export function presentBalance(wallet: Wallet, wallets: readonly Wallet[]): BalanceResponse {
  return {
    status: BALANCE_OK_STATUS,
    amount: fromCents(wallet.balanceCents),
    currency: wallet.currency,
    shortcode: wallet.shortcode,
    wallets: wallets.map((w) => ({
      shortcode: w.shortcode,
      amount: fromCents(w.balanceCents),
      currency: w.currency,
      default: w.shortcode === null,
    })),
  };
}

export function presentAdminCustomer(customer: Customer): AdminCustomer {
  return {
    id: customer.id,
    name: customer.name,
    tokens: [...customer.tokens],
    apiKey: customer.apiKey,
    wallets: customer.wallets.map((w) => ({
      shortcode: w.shortcode,
      balance: fromCents(w.balanceCents),
      currency: w.currency,
      default: w.shortcode === null,
    })),
    webhook:
      customer.webhook === undefined
        ? null
        : {
            url: customer.webhook.url,
            secrets: [...customer.webhook.secrets],
            disabled: customer.webhook.disabled === true,
          },
  };
}
