/**
 * The promises a run leaves behind: every order the model placed, with its
 * key, its payload and the last status the run saw. They are judged again
 * after the run — by the late audit, seconds later, and by `--recheck`, a
 * day later — because a final status that changes afterwards, or a key the
 * target forgets early, shows only with time.
 */
import type { KeyLocation } from "../api.ts";

export interface PromisedOrder {
  /** The customer's token; never written to a saved run. */
  readonly token: string;
  readonly reference: string;
  readonly key: string;
  readonly keyIn: KeyLocation;
  /** The body as sent (a replay sends it again, byte for byte the same fields). */
  readonly payload: Readonly<Record<string, unknown>>;
  readonly amountCents: number;
  /** The id the target gave the order, when the run learned it. */
  readonly id: string | undefined;
  /** The last status the run saw, and whether it was final. */
  readonly status: number | undefined;
  readonly final: boolean;
  /** Wall time (ms since the epoch) when the run last saw it: it was final no later than this. */
  readonly seenAt: number;
}

export interface PromisedOrders {
  add(order: PromisedOrder): void;
  all(): readonly PromisedOrder[];
}

export function createPromisedOrders(): PromisedOrders {
  const orders: PromisedOrder[] = [];
  return {
    add(order) {
      orders.push(order);
    },
    all: () => orders,
  };
}
