import { describe, expect, test } from "vitest";
import type { StatusChange } from "../../src/domain/service-types.ts";
import type { SimulatorContext, SimulatorPlugin } from "../../src/index.ts";
import { createSimulator } from "../../src/simulator/create-simulator.ts";
import { admin, balanceOf, orderBody, placeOrder, startSimulator } from "../support/http.ts";

describe("createSimulator", () => {
  test("requestListener answers in-process, with no port opened", async () => {
    const sim = await createSimulator({ defaultPlugins: false });
    try {
      expect(await balanceOf(sim, sim.demo?.token)).toBe(100_000);
      expect(() => sim.url).toThrow(/listen/);
    } finally {
      await sim.close();
    }
  });

  test("demo: false seeds no customer; options.customers are seeded", async () => {
    const sim = await startSimulator({
      demo: false,
      customers: [{ id: "acme", token: "acme-token-1", balance: 77, wallets: [{ shortcode: "600", balance: 5 }] }],
    });
    try {
      expect(sim.demo).toBeUndefined();
      expect((await sim.customers.listCustomers()).map((c) => c.id)).toEqual(["acme"]);
      expect(await balanceOf(sim, "acme-token-1")).toBe(77);
      expect(await balanceOf(sim, "acme-token-1", "600")).toBe(5);
    } finally {
      await sim.close();
    }
  });

  test("limits and timing options apply", async () => {
    const sim = await startSimulator({ limits: { minAmount: 1, maxAmount: 50 }, timing: "5s" });
    try {
      expect((await placeOrder(sim, orderBody({ amount: 1 }))).status).toBe(200);
      expect((await placeOrder(sim, orderBody({ amount: 51 }))).status).toBe(400);
      const body = orderBody({ amount: 20 });
      expect((await placeOrder(sim, body)).status).toBe(200);
      await sim.clock.advance(4_999);
      expect((await sim.service.getOrderByReference("demo", body.reference as string))?.status).toBe(0);
      await sim.clock.advance(1);
      expect((await sim.service.getOrderByReference("demo", body.reference as string))?.status).toBe(20);
    } finally {
      await sim.close();
    }
  });

  test("bad options are refused at creation", async () => {
    await expect(createSimulator({ timing: "soon" })).rejects.toThrow(/timing/);
    await expect(createSimulator({ failureRate: 2 })).rejects.toThrow(/failureRate/);
    await expect(createSimulator({ limits: { minAmount: 100, maxAmount: 10 } })).rejects.toThrow(/limits/);
  });

  test("options are held to the config file's rules, by the one settings schema", async () => {
    // The same rule and the same words as a config file gets, whichever way a setting comes in.
    await expect(createSimulator({ maxOrders: 0 })).rejects.toThrow(/maxOrders must be at least 1/);
    await expect(createSimulator({ store: "postgres://db" })).rejects.toThrow(
      /store must be memory, a redis:\/\/ or a redis\+cluster:\/\/ URL/,
    );
    await expect(createSimulator({ cors: ["localhost"] })).rejects.toThrow(/cors\.0 must be an origin/);
    await expect(createSimulator({ seed: 1.5 })).rejects.toThrow(/seed must be an integer/);
    const { SimulatorConfigSchema } = await import("../../src/simulator/config-schema.ts");
    expect(SimulatorConfigSchema.safeParse({ maxOrders: 0 }).success).toBe(false);
    await expect(createSimulator({ journalLimit: 0 })).rejects.toThrow(/journalLimit must be at least 1/);
    expect(SimulatorConfigSchema.safeParse({ journalLimit: "500" }).data?.journalLimit).toBe(500);
  });

  test("a failure rate of 1 fails every order and refunds it", async () => {
    const sim = await startSimulator({ failureRate: 1 });
    try {
      const body = orderBody();
      await placeOrder(sim, body);
      await sim.clock.advance(2_000);
      expect((await sim.service.getOrderByReference("demo", body.reference as string))?.status).toBe(2);
      expect(await balanceOf(sim)).toBe(100_000);
    } finally {
      await sim.close();
    }
  });
});

describe("plugins", () => {
  test("every member of a plugin is honoured: context, events, settle on advance, close", async () => {
    const log: string[] = [];
    const changes: StatusChange[] = [];
    let context: SimulatorContext | undefined;
    let pendingWork: Promise<void> = Promise.resolve();
    const plugin = (ctx: SimulatorContext): SimulatorPlugin => {
      context = ctx;
      return {
        name: "recorder",
        events: {
          async statusChanged(change) {
            changes.push(change);
            // Background work the simulator must wait for in advance()/settle().
            pendingWork = new Promise((resolve) =>
              setTimeout(() => {
                log.push(`settled ${change.order.status}`);
                resolve();
              }, 20),
            );
          },
        },
        settle: () => pendingWork,
        async close() {
          log.push("closed");
        },
      };
    };
    const sim = await startSimulator({ plugins: [plugin] });
    expect(context?.service).toBe(sim.service);
    expect(context?.store).toBe(sim.store);
    const reply = await placeOrder(sim, orderBody());
    await sim.clock.advance(2_000);
    // advance() returned only after the plugin's background work settled.
    expect(log).toContain("settled 20");
    const final = changes.find((c) => c.order.id === reply.body.id && c.final);
    expect(final?.order.status).toBe(20);
    await sim.close();
    expect(log.at(-1)).toBe("closed");
  });

  test("an admin reset is passed on to every plugin's reset, for all or for one customer", async () => {
    const resets: (string | undefined)[] = [];
    const sim = await startSimulator({
      plugins: [() => ({ name: "resettable", reset: async (customerId) => void resets.push(customerId) })],
    });
    try {
      await admin(sim, "/reset?customer=demo", { method: "POST" });
      await admin(sim, "/reset", { method: "POST" });
      expect(resets).toEqual(["demo", undefined]);
    } finally {
      await sim.close();
    }
  });

  test("an async plugin factory is awaited", async () => {
    const sim = await startSimulator({
      plugins: [
        async () => {
          await new Promise((resolve) => setTimeout(resolve, 5));
          return {
            name: "late",
            admin: { name: "late", register: (r) => r.get("/late", (_q, s) => void s.json({ ok: 1 })) },
          };
        },
      ],
    });
    try {
      expect((await admin(sim, "/late")).body).toEqual({ ok: 1 });
    } finally {
      await sim.close();
    }
  });
});
