import { afterEach, describe, expect, it, vi } from "vitest";
import { createKeyedQueue } from "../../src/domain/idempotency.ts";
import { createOrderEventBus } from "../../src/domain/order-events.ts";
import type { StatusChange } from "../../src/domain/service-types.ts";
import { createEmbeddedDomain } from "../../src/simulator/embedded-domain.ts";

describe("keyed queue", () => {
  it("runs same-key tasks one at a time in arrival order, other keys alongside", async () => {
    const queue = createKeyedQueue();
    const log: string[] = [];
    const task = (name: string) => async () => {
      log.push(`start ${name}`);
      await new Promise<void>((resolve) => setImmediate(resolve));
      log.push(`end ${name}`);
      return name;
    };
    const results = await Promise.all([
      queue.run("a", task("a1")),
      queue.run("b", task("b1")),
      queue.run("a", task("a2")),
      queue.run("a", task("a3")),
    ]);
    expect(results).toEqual(["a1", "b1", "a2", "a3"]);
    expect(log.indexOf("end a1")).toBeLessThan(log.indexOf("start a2"));
    expect(log.indexOf("end a2")).toBeLessThan(log.indexOf("start a3"));
    expect(log.indexOf("start b1")).toBeLessThan(log.indexOf("end a1"));
    expect(queue.size).toBe(0);
  });

  it("lets the next task run after one throws", async () => {
    const queue = createKeyedQueue();
    const failing = queue.run("k", async () => {
      throw new Error("first failed");
    });
    const next = queue.run("k", async () => "second ran");
    await expect(failing).rejects.toThrow("first failed");
    await expect(next).resolves.toBe("second ran");
    expect(queue.size).toBe(0);
  });
});

describe("order event bus", () => {
  const change = { previousStatus: 0, final: true } as unknown as StatusChange;

  it("tells every listener in subscription order until it unsubscribes", async () => {
    const bus = createOrderEventBus();
    const heard: string[] = [];
    bus.subscribe({ statusChanged: async () => void heard.push("first") });
    const unsubscribe = bus.subscribe({ statusChanged: async () => void heard.push("second") });
    await bus.events.statusChanged(change);
    unsubscribe();
    await bus.events.statusChanged(change);
    expect(heard).toEqual(["first", "second", "first"]);
  });

  it("tells a listener subscribed twice once, and a change under way keeps the listeners it started with", async () => {
    const bus = createOrderEventBus();
    const heard: string[] = [];
    const late = { statusChanged: async () => void heard.push("late") };
    const twice = {
      statusChanged: async () => {
        heard.push("twice");
        bus.subscribe(late);
      },
    };
    bus.subscribe(twice);
    bus.subscribe(twice);
    await bus.events.statusChanged(change);
    expect(heard).toEqual(["twice"]);
    await bus.events.statusChanged(change);
    expect(heard).toEqual(["twice", "twice", "late"]);
  });

  it("still tells the others when one listener throws, then reports the error", async () => {
    const bus = createOrderEventBus();
    const heard: string[] = [];
    bus.subscribe({
      statusChanged: async () => {
        throw new Error("down");
      },
    });
    bus.subscribe({ statusChanged: async () => void heard.push("second") });
    await expect(bus.events.statusChanged(change)).rejects.toThrow("down");
    expect(heard).toEqual(["second"]);
  });
});

describe("embedded domain on a real clock", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("makes an order final when the wall clock reaches its due time", async () => {
    vi.useFakeTimers({ now: 10_000 });
    const domain = createEmbeddedDomain({ clock: "real", ids: "sequential", timing: { kind: "fixed", ms: 1_500 } });
    await domain.customers.create({ id: "c", wallets: [{ balanceCents: 100_000 }] });
    const placed = await domain.service.placeOrder({
      customerId: "c",
      request: { account: "0712345678", amountCents: 1_000, currency: "KES", reference: "r" },
    });
    expect(placed).toMatchObject({ kind: "placed", order: { status: 0, createdAt: 10_000 } });
    await vi.advanceTimersByTimeAsync(1_499);
    expect((await domain.store.getOrder("ord_1"))?.status).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(await domain.store.getOrder("ord_1")).toMatchObject({ status: 20, updatedAt: 11_500 });
    domain.time.stop();
  });
});
