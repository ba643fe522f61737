import { describe, expect, it } from "vitest";
import type { PlaceOrderOutcome } from "../../src/domain/service-types.ts";
import { createMemoryStore } from "../../src/store/memory-store.ts";
import { createCheckedStore } from "./checked-store.ts";
import { command, createTestDomain } from "./support.ts";

function idOf(outcome: PlaceOrderOutcome): string | undefined {
  return outcome.kind === "placed" || outcome.kind === "replayed" ? outcome.order.id : undefined;
}

describe("concurrency", () => {
  it("100 concurrent calls with one key make one order, one debit and one id in every outcome", async () => {
    const domain = await createTestDomain({ balanceCents: 1_000_000 });
    const outcomes = await Promise.all(
      Array.from({ length: 100 }, () =>
        domain.service.placeOrder(command({ idempotencyKey: "one-key", amountCents: 2_500 })),
      ),
    );
    expect(outcomes.filter((o) => o.kind === "placed")).toHaveLength(1);
    expect(outcomes.filter((o) => o.kind === "replayed")).toHaveLength(99);
    expect(new Set(outcomes.map(idOf))).toEqual(new Set(["ord_1"]));
    expect(await domain.orders()).toHaveLength(1);
    expect(await domain.balance()).toBe(1_000_000 - 2_500);
  });

  it("100 concurrent calls with one key keep one order while the clock advances and the first fails", async () => {
    const domain = await createTestDomain({ balanceCents: 100_000, failureRate: 1, timing: { kind: "fixed", ms: 5 } });
    const calls = Array.from({ length: 100 }, (_, i) =>
      i % 10 === 0
        ? domain.time.advance(1).then(() => undefined)
        : domain.service.placeOrder(command({ idempotencyKey: "k", amountCents: 1_000 })),
    );
    const outcomes = (await Promise.all(calls)).filter((o): o is PlaceOrderOutcome => o !== undefined);
    expect(new Set(outcomes.map(idOf))).toEqual(new Set(["ord_1"]));
    await domain.time.advance(10);
    // The one order failed and was refunded once.
    expect((await domain.orders()).map((o) => o.status)).toEqual([2]);
    expect(await domain.balance()).toBe(100_000);
  });

  it("300 concurrent orders against a balance for exactly 100 place 100, refuse 200, never go negative", async () => {
    const checked = createCheckedStore(createMemoryStore());
    const domain = await createTestDomain({ balanceCents: 100 * 1_000, store: checked.store });
    const outcomes = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        domain.service.placeOrder(
          command({ reference: `r-${i}`, amountCents: 1_000, ...(i % 2 === 0 ? { idempotencyKey: `k-${i}` } : {}) }),
        ),
      ),
    );
    expect(outcomes.filter((o) => o.kind === "placed")).toHaveLength(100);
    expect(outcomes.filter((o) => o.kind === "insufficient_balance")).toHaveLength(200);
    expect(await domain.balance()).toBe(0);
    expect(await domain.orders()).toHaveLength(100);
    expect(checked.calls()).toBeGreaterThan(600);
    expect(checked.violations).toEqual([]);
  });

  it("the checked store does catch a negative balance", async () => {
    const checked = createCheckedStore(createMemoryStore());
    await checked.store.putCustomer({
      id: "x",
      name: "x",
      tokens: [],
      apiKey: "k",
      wallets: [{ shortcode: null, balanceCents: -1, currency: "KES" }],
    });
    expect(checked.violations).toHaveLength(1);
  });
});
