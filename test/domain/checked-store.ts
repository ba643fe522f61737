/**
 * A Store wrapper that inspects every wallet after every store call, so a
 * balance that dips below zero even for a moment is caught where it happens.
 */
import type { Store } from "../../src/domain/ports.ts";

export interface CheckedStore {
  readonly store: Store;
  /** Every wallet balance below zero seen after a store call. */
  readonly violations: string[];
  /** Store calls made so far. */
  calls(): number;
}

export function createCheckedStore(inner: Store): CheckedStore {
  const violations: string[] = [];
  let count = 0;

  async function inspect(method: string): Promise<void> {
    count++;
    for (const customer of await inner.listCustomers()) {
      for (const wallet of customer.wallets) {
        if (wallet.balanceCents < 0)
          violations.push(`${method}: ${customer.id}/${wallet.shortcode} = ${wallet.balanceCents}`);
      }
    }
  }

  const store = new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        const result = await value.apply(target, args);
        await inspect(String(property));
        return result;
      };
    },
  });
  return { store, violations, calls: () => count };
}
