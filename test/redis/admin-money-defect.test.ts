/**
 * The money property (`test/support/admin-money.ts`) catches a broken
 * store it sees only through the HTTP API: here the memory store refunds a
 * reversed or failed order twice (its compare-and-set with a refund credits
 * the wallet a second time), a defect planted below the simulator, which
 * is otherwise whole. The same property passes on the correct memory and
 * Redis stores (`admin-money.test.ts`).
 */
import { describe, expect, it, vi } from "vitest";
import type { Store } from "../../src/domain/ports.ts";
import { assertMoneyUnderAdminTraffic } from "../support/admin-money.ts";

vi.mock(import("../../src/store/memory-store.ts"), async (importOriginal) => {
  const original = await importOriginal();
  return {
    ...original,
    createMemoryStore: (...args: Parameters<typeof original.createMemoryStore>) =>
      refundingTwice(original.createMemoryStore(...args)),
  };
});

/** `store` whose refunding compare-and-set credits the order's amount once more. */
function refundingTwice<T extends Store>(store: T): T {
  const updateOrderIf: Store["updateOrderIf"] = async (order, expectedVersion, refund) => {
    const updated = await store.updateOrderIf(order, expectedVersion, refund);
    if (updated && refund === true) {
      const customer = await store.getCustomer(order.customerId);
      const wallet = customer?.wallets.find((candidate) => candidate.shortcode === order.shortcode);
      if (wallet !== undefined) {
        await store.setWalletBalance(order.customerId, order.shortcode, wallet.balanceCents + order.amountCents);
      }
    }
    return updated;
  };
  return new Proxy(store, {
    get: (target, name, receiver) => (name === "updateOrderIf" ? updateOrderIf : Reflect.get(target, name, receiver)),
  });
}

describe("money under admin traffic on a store that refunds twice", () => {
  it("fails the property", { timeout: 120_000 }, async () => {
    const failure = await assertMoneyUnderAdminTraffic({ seed: 1 }).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(failure?.message).toMatch(/Property failed/);
    // The ledger check failed, not a crash: the wallet plus the held orders exceed the ledger.
    const cause = failure?.cause as Error | undefined;
    expect(cause?.message).toMatch(/expected (\d+) to be (\d+)/);
    const [, actual, ledger] = /expected (\d+) to be (\d+)/.exec(cause?.message ?? "") ?? [];
    expect(Number(actual)).toBeGreaterThan(Number(ledger));
  });
});
