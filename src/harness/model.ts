/**
 * The model of a model-based run: what the harness expects the target to
 * hold, kept deliberately small (not a carbon copy of the simulator). It
 * predicts ids (a replay answers the id of the first response), statuses
 * (monotonic; final after the configured timing on a virtual clock) and the
 * balance (the start minus the amounts of orders not refunded).
 */
import type { Service } from "../contract/operators.ts";
import type { CompiledStatuses } from "../contract/provider-profile/compile.ts";
import {
  isFinalStatus,
  PENDING_STATUS,
  refundsWallet,
  type StatusTable,
  SUCCESS_STATUS,
} from "../contract/status-codes.ts";
import type { Recipient } from "./accounts.ts";
import type { KeyLocation } from "./api.ts";
import type { Budget } from "./budget.ts";

export interface ModelConfig {
  /** The only recipients orders may use. */
  readonly recipients: readonly Recipient[];
  readonly budget: Budget;
  /**
   * Pending → final delay, when the target's lifecycle is known (the
   * in-process simulator on a virtual clock): statuses become predictable.
   */
  readonly timingMs: number | undefined;
  /** The clock can be advanced (virtual clock and admin powers). */
  readonly virtualClock: boolean;
  /** Outcomes can be forced (admin powers). */
  readonly admin: boolean;
  readonly webhooks: boolean;
  readonly statusTable: StatusTable;
  /** The provider profile's status table, compiled: classes and legal moves. */
  readonly statuses: CompiledStatuses;
  /**
   * Which moves between observed statuses are judged: `table`, every move by
   * the status table's transitions; `final_to_pending`, only a final status
   * reading as pending again (§3 calls the final status final; the interface
   * shows no transitions, so without a profile's table nothing else is known).
   */
  readonly moves: "table" | "final_to_pending";
  /** Upper bound on orders per run, so runs stay short. */
  readonly maxOrders: number;
  /**
   * The account is used only by the harness: after settling, the balance must
   * equal the start minus every order not refunded, exactly. Off for shared
   * accounts, where only a lower bound holds.
   */
  readonly exactBalance: boolean;
  /**
   * A second wallet of the run's customer (created by the harness with admin
   * powers, with the same start balance as the default one): orders that
   * name its shortcode are funded by it, and leave the default wallet as it is.
   */
  readonly shortcode: string | undefined;
}

/** How a command asks for the service: explicitly, under its `network` alias, or left to prefix detection. */
export type ServiceMode = "explicit" | "network" | "detect";

export interface OrderPayload {
  readonly account: string;
  readonly amount: number;
  readonly currency: string;
  readonly reference: string;
  readonly service?: Service;
  readonly network?: Service;
  readonly name?: string;
  readonly phone?: string;
  readonly shortcode?: string;
}

export interface ModelOrder {
  readonly slot: number;
  readonly reference: string;
  readonly key: string;
  readonly keyIn: KeyLocation;
  readonly payload: OrderPayload;
  readonly amountCents: number;
  readonly recipient: Recipient;
  /** Known once a response (or the proxy) reported it. */
  id: string | undefined;
  /** The target holds this order (it answered 200, seen by the client or by the proxy). */
  committed: boolean;
  /**
   * A request carrying the order's key went unanswered (a 5xx, a reset or a
   * timeout after it was sent) before any answer placed it: the target may
   * hold it or not. The audit resolves it before judging (audit/run-audit.ts).
   */
  unknown: boolean;
  /**
   * The lookup answered that the order is gone (HTTP 410: evicted under an
   * order cap): it is no longer polled, and its status stays the last seen.
   */
  evicted: boolean;
  /** Model time (ms since the run started) when the order was committed. */
  placedAtMs: number | undefined;
  /** The last status the harness observed (lookup, replay). */
  lastStatus: number | undefined;
  /** A final status forced through the admin API; prediction gives way to it. */
  forcedStatus: number | undefined;
}

export interface HarnessModel {
  readonly config: ModelConfig;
  readonly orders: ModelOrder[];
  /** Balance of the default wallet (and of the shortcode wallet, when there is one) at the start of the run, in cents. */
  startBalanceCents: number;
  /** Time advanced (or waited) since the run started, ms. */
  elapsedMs: number;
}

export function createModel(config: ModelConfig, startBalanceCents: number): HarnessModel {
  return { config, orders: [], startBalanceCents, elapsedMs: 0 };
}

function isPredictable(model: HarnessModel): boolean {
  return model.config.timingMs !== undefined && model.config.virtualClock;
}

/** The status the target must report now, when the model can know it. */
export function expectedStatus(model: HarnessModel, order: ModelOrder): number | undefined {
  if (!order.committed || !isPredictable(model)) return undefined;
  if (order.forcedStatus !== undefined) return order.forcedStatus;
  const timing = model.config.timingMs as number;
  const placedAt = order.placedAtMs ?? model.elapsedMs;
  return model.elapsedMs - placedAt >= timing ? SUCCESS_STATUS : PENDING_STATUS;
}

/** The status the model believes the order has now: predicted, else the last observed. */
function believedStatus(model: HarnessModel, order: ModelOrder): number | undefined {
  return expectedStatus(model, order) ?? order.forcedStatus ?? order.lastStatus;
}

/** True when `next` may follow the status `last` observed before it (same, or an allowed transition). */
export function isMonotonic(model: HarnessModel, last: number | undefined, next: number): boolean {
  if (last === undefined || last === next) return true;
  const { statuses, moves } = model.config;
  if (moves === "final_to_pending") return !(statuses.isFinal(last) && next === PENDING_STATUS);
  return statuses.isAllowedMove(last, next);
}

export function isFinal(model: HarnessModel, status: number): boolean {
  return isFinalStatus(model.config.statusTable, status);
}

export interface BalanceExpectation {
  /** Exact expected balance in cents, when every order's fate is known. */
  readonly exactCents: number | undefined;
  /** The balance may not be lower: every order debited once, none refunded. */
  readonly minCents: number;
}

/** The wallet that funds an order: its shortcode's, or the default one (null). */
export function walletOf(order: ModelOrder): string | null {
  return order.payload.shortcode ?? null;
}

/** The orders funded by `wallet` (null: the default wallet). */
export function fundedBy(orders: readonly ModelOrder[], wallet: string | null): ModelOrder[] {
  return orders.filter((order) => walletOf(order) === wallet);
}

/** start − Σ amounts of committed orders not refunded, for one wallet (null: the default one). */
export function expectedBalance(model: HarnessModel, wallet: string | null = null): BalanceExpectation {
  let maxDebit = 0;
  let exactDebit = 0;
  let exact = isPredictable(model);
  for (const order of fundedBy(model.orders, wallet)) {
    // An unknown order may have been debited: the least balance allows for it, the exact one is not known.
    if (order.unknown) {
      maxDebit += order.amountCents;
      exact = false;
    }
    if (!order.committed) continue;
    const status = believedStatus(model, order);
    const refunded = status !== undefined && refundsWallet(model.config.statusTable, status);
    // A failed-class final is terminal: its refund is certain.
    if (!refunded) maxDebit += order.amountCents;
    if (expectedStatus(model, order) === undefined) exact = false;
    else if (!refunded) exactDebit += order.amountCents;
  }
  return {
    exactCents: exact ? model.startBalanceCents - exactDebit : undefined,
    minCents: model.startBalanceCents - maxDebit,
  };
}

/** Orders whose fate the model does not know yet (see `ModelOrder.unknown`). */
export function unknownOrders(model: HarnessModel): ModelOrder[] {
  return model.orders.filter((order) => order.unknown);
}

/** Committed orders, for commands that pick among them by position. */
export function committedOrders(model: HarnessModel): ModelOrder[] {
  return model.orders.filter((order) => order.committed);
}

/** Orders sent with an idempotency key: only these can be retried (a keyless order sent again is a new one). */
export function keyed(orders: readonly ModelOrder[]): ModelOrder[] {
  return orders.filter((order) => order.keyIn !== "none");
}

/** Picks by position, so every generated index names a valid target. */
export function pick<T>(items: readonly T[], index: number): T | undefined {
  return items.length === 0 ? undefined : items[index % items.length];
}

/** A status's name in the table ("Success", "Timeout" …), for reports. */
export function statusName(model: HarnessModel, status: number): string {
  return model.config.statusTable.get(status)?.message ?? `status ${status}`;
}

export function formatKes(cents: number): string {
  return (cents / 100).toFixed(2);
}
