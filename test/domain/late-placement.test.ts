/**
 * An order's first step is scheduled alongside its placement, so on a
 * shared store the step can fall due, and run in another process, before
 * the order is stored: the placing process stalled between its two writes
 * (a loaded machine), or they went to two cluster masters. The step then
 * looks again for a while instead of ending, so the order still gets its
 * final status; an order that never lands lets it end.
 */
import { describe, expect, it } from "vitest";
import type { Store } from "../../src/domain/ports.ts";
import { createMemoryStore } from "../../src/store/memory-store.ts";
import { CUSTOMER, command, createTestDomain } from "./support.ts";

/** A memory store whose placements wait until `land()`: the write that reaches the store late. */
function storeWithLatePlacements(): { store: Store; land(): void } {
  const store = createMemoryStore();
  let land = () => undefined as void;
  const landed = new Promise<void>((resolve) => {
    land = resolve;
  });
  const placeOrder: Store["placeOrder"] = async (placement) => {
    await landed;
    return store.placeOrder(placement);
  };
  return { store: { ...store, placeOrder } as Store, land: () => land() };
}

describe("a placement that lands after its first step fell due", () => {
  it("still gets its final status once it is stored", async () => {
    const late = storeWithLatePlacements();
    const domain = await createTestDomain({ store: late.store, timing: { kind: "fixed", ms: 100 } });
    const placing = domain.service.placeOrder(command());
    // The step falls due and runs while the order is not stored yet.
    await domain.time.advance(2_000);
    late.land();
    expect(await placing).toMatchObject({ kind: "placed" });
    expect((await domain.service.getOrderByReference(CUSTOMER, "ref-1"))?.status).toBe(0);
    await domain.time.advance(1_000);
    expect((await domain.service.getOrderByReference(CUSTOMER, "ref-1"))?.status).toBe(20);
    expect(domain.changes.map((change) => change.order.status)).toEqual([20]);
  });

  it("stops looking once an order that never landed is given up", async () => {
    const late = storeWithLatePlacements();
    const domain = await createTestDomain({ store: late.store, timing: { kind: "fixed", ms: 100 } });
    void domain.service.placeOrder(command());
    await domain.time.advance(60_000);
    expect(await domain.scheduler.size()).toBe(0);
  });
});
