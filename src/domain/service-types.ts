/**
 * The simulator's domain operations and their outcomes. Operations return a
 * discriminated union; callers switch over `kind` exhaustively. They throw
 * only for bugs.
 */
import type { Service } from "../contract/operators.ts";
import type { WebhookFaults } from "./faults.ts";
import type { Customer, EvictedOrder, Order, OutcomePlan, Wallet } from "./model.ts";

export interface PlaceOrderCommand {
  readonly customerId: string;
  /** Already schema-valid; the domain normalises account, service and wallet. */
  readonly request: {
    readonly service?: Service;
    readonly account: string;
    readonly amountCents: number;
    readonly currency: string;
    readonly reference: string;
    readonly shortcode?: string;
    readonly idempotencyKey?: string;
  };
  /** Overrides the default lifecycle (timing + outcome) for this order. */
  readonly plan?: OutcomePlan;
  /** Answer insufficient balance whatever the wallet holds (scenario effect). */
  readonly forceInsufficient?: boolean;
  readonly webhookFaults?: WebhookFaults;
  /**
   * The customer as this request's authentication just read it, so the
   * domain does not read it again; read from the store when absent. Balances
   * are checked by the store's atomic step, never on this copy.
   */
  readonly customer?: Customer;
}

export type PlaceOrderOutcome =
  | { readonly kind: "placed"; readonly order: Order }
  | { readonly kind: "replayed"; readonly order: Order }
  | { readonly kind: "payload_mismatch" }
  | { readonly kind: "insufficient_balance"; readonly reference: string; readonly wallet: Wallet }
  | { readonly kind: "duplicate_reference"; readonly reference: string }
  | { readonly kind: "service_undetectable"; readonly account: string }
  | { readonly kind: "unknown_shortcode"; readonly shortcode: string };

/** A lookup by reference: `evicted` when the order went under the order cap but its retention has not ended. */
export type OrderLookup =
  | { readonly kind: "found"; readonly order: Order }
  | { readonly kind: "evicted"; readonly evicted: EvictedOrder }
  | { readonly kind: "not_found" };

export type BalanceOutcome =
  | { readonly kind: "balance"; readonly wallet: Wallet; readonly wallets: readonly Wallet[] }
  | { readonly kind: "unknown_shortcode"; readonly shortcode: string };

export type TransitionOutcome =
  | { readonly kind: "transitioned"; readonly order: Order }
  | { readonly kind: "not_found" }
  | { readonly kind: "invalid_transition"; readonly from: number; readonly to: number };

/** Emitted after every status change is stored (webhooks subscribe to it). */
export interface StatusChange {
  readonly order: Order;
  readonly previousStatus: number;
  readonly final: boolean;
  /** The funding wallet after the change (refunds applied). */
  readonly wallet: Wallet;
  /** The order's customer as read for `wallet`, when it was (listeners need not read it again). */
  readonly customer?: Customer;
  /**
   * Announced again: a step run a second time found its change already
   * stored by a first run that may have died before announcing it. Whatever
   * a listener creates for a change, it creates only if absent; a listener
   * that only reports changes ignores it.
   */
  readonly repeated?: boolean;
}

export interface OrderEvents {
  statusChanged(change: StatusChange): Promise<void>;
}

export interface AirtimeService {
  placeOrder(command: PlaceOrderCommand): Promise<PlaceOrderOutcome>;
  getOrderByReference(customerId: string, reference: string): Promise<Order | undefined>;
  /** Like `getOrderByReference`, telling an evicted order from one that never was. */
  findOrder(customerId: string, reference: string): Promise<OrderLookup>;
  getBalance(customerId: string, shortcode?: string): Promise<BalanceOutcome>;
  /** Admin: force a status (succeed, fail, reverse …); the normal rules still apply. */
  forceTransition(orderId: string, status: number, message?: string): Promise<TransitionOutcome>;
  authenticate(token: string): Promise<Customer | undefined>;
}
