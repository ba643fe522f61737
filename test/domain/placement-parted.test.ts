/**
 * On Redis Cluster a placement's order and its first step's job are
 * written to two masters, and a fault can part them. Here the parting is
 * planted in the ports: the job's first write fails (a reset on its
 * master), or the order's write is applied but its answer is lost. The
 * order must still go final, its debit settled, rather than hold its money
 * pending for good.
 */
import { describe, expect, it } from "vitest";
import { ORDER_STEP_JOB } from "../../src/domain/lifecycle.ts";
import type { Scheduler, Store } from "../../src/domain/ports.ts";
import { createEmbeddedDomain } from "../../src/simulator/embedded-domain.ts";
import { createMemoryStore } from "../../src/store/memory-store.ts";
import { createTimeKeeper } from "../../src/time/time-keeper.ts";
import { command, CUSTOMER, START } from "./support.ts";

/** A scheduler whose first write of an order's step fails, as on a connection reset. */
function failingFirstStep(scheduler: Scheduler): Scheduler {
  let failed = false;
  return {
    ...scheduler,
    handle: (type, handler) => scheduler.handle(type, handler),
    async schedule(job) {
      if (job.type === ORDER_STEP_JOB && !failed) {
        failed = true;
        throw new Error("Connection is closed.");
      }
      return scheduler.schedule(job);
    },
  };
}

/** A store that applies the first placement but loses its answer. */
function losingFirstAnswer(store: Store): Store {
  let lost = false;
  return new Proxy(store, {
    get(target, name, receiver) {
      if (name !== "placeOrder") return Reflect.get(target, name, receiver);
      return async (placement: Parameters<Store["placeOrder"]>[0]) => {
        const result = await target.placeOrder(placement);
        if (lost) return result;
        lost = true;
        throw new Error("Command timed out");
      };
    },
  });
}

async function partedDomain(parts: { readonly loseAnswer: boolean }) {
  const time = createTimeKeeper({ mode: "virtual", startAt: START });
  const memory = createMemoryStore();
  const domain = createEmbeddedDomain({
    clock: "virtual",
    startAt: START,
    ids: "sequential",
    seed: 1,
    time,
    scheduler: failingFirstStep(time.scheduler),
    store: parts.loseAnswer ? losingFirstAnswer(memory) : memory,
    onJobError: (error) => {
      throw error;
    },
  });
  const created = await domain.customers.create({
    id: CUSTOMER,
    tokens: ["tok_parted"],
    apiKey: "key_parted",
    wallets: [{ balanceCents: 100_000 }],
  });
  expect(created.kind).toBe("created");
  return { domain, memory };
}

describe("a placement whose order and first step were parted", () => {
  it("is acknowledged and goes final when only the step's write failed", async () => {
    const { domain, memory } = await partedDomain({ loseAnswer: false });
    const placed = await domain.service.placeOrder(command({ amountCents: 4_000 }));
    expect(placed.kind).toBe("placed");
    await domain.time.advance(60_000);
    const [order] = await memory.listOrders({ customerId: CUSTOMER });
    expect(order?.status).toBe(20);
  });

  it("goes final when the order's answer was lost too", async () => {
    const { domain, memory } = await partedDomain({ loseAnswer: true });
    await expect(domain.service.placeOrder(command({ amountCents: 4_000 }))).rejects.toThrow("Command timed out");
    await domain.time.advance(60_000);
    const [order] = await memory.listOrders({ customerId: CUSTOMER });
    expect(order?.history.map((entry) => entry.status)).toEqual([0, 20]);
  });
});
