/**
 * What the domain asks of the store for one order: on a shared store each
 * call is a round trip, so an order placed for an authenticated request
 * reads neither the customer nor the order back.
 */
import { describe, expect, it } from "vitest";
import type { Store } from "../../src/domain/ports.ts";
import { createMemoryStore } from "../../src/store/memory-store.ts";
import { command, createTestDomain, TOKEN } from "./support.ts";

/** The store, with a count of the calls of each method. */
function counted(inner: Store): { store: Store; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function" || typeof property !== "string") return value;
      return (...args: unknown[]) => {
        calls.set(property, (calls.get(property) ?? 0) + 1);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store, calls };
}

describe("the store calls of one order", () => {
  it("places an order for an authenticated customer without reading the customer or the order again", async () => {
    const { store, calls } = counted(createMemoryStore());
    const domain = await createTestDomain({ store, timing: { kind: "fixed", ms: 1_000 } });
    const customer = await domain.service.authenticate(TOKEN);
    calls.clear();
    const outcome = await domain.service.placeOrder({ ...command(), customer: customer! });
    expect(outcome).toMatchObject({ kind: "placed", order: { status: 0 } });
    expect(calls.get("placeOrder")).toBe(1);
    expect(calls.get("getCustomer")).toBeUndefined();
    expect(calls.get("getOrder")).toBeUndefined();
  });

  it("answers with the order its immediate steps made, still without reading it back", async () => {
    const { store, calls } = counted(createMemoryStore());
    const domain = await createTestDomain({ store });
    const customer = await domain.service.authenticate(TOKEN);
    calls.clear();
    const plan = { steps: [{ afterMs: 0, status: 20 }] };
    const outcome = await domain.service.placeOrder({ ...command(), customer: customer!, plan });
    expect(outcome).toMatchObject({ kind: "placed", order: { status: 20 } });
    expect(calls.get("getOrder")).toBeUndefined();
    expect((await domain.service.getOrderByReference(customer!.id, "ref-1"))?.status).toBe(20);
  });
});
