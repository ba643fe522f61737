import { describe, expect, it } from "vitest";
import { DEFAULT_STATUS_TABLE } from "../../src/contract/status-codes.ts";
import { createAirtimeService } from "../../src/domain/airtime-service.ts";
import { createSeededRandom, createSequentialIds } from "../../src/domain/ids.ts";
import { countImmediateSteps, createDefaultPlan, DEFAULT_LIFECYCLE } from "../../src/domain/lifecycle.ts";
import { createMemoryStore } from "../../src/store/memory-store.ts";
import { createTimeKeeper } from "../../src/time/time-keeper.ts";
import { CUSTOMER, command, createTestDomain, START } from "./support.ts";

const START_BALANCE = 1_000_000;

describe("the default plan", () => {
  it("is one step to 20 Success after the sampled delay", () => {
    expect(createDefaultPlan(DEFAULT_LIFECYCLE, createSeededRandom(1))).toEqual({
      steps: [{ afterMs: 2_000, status: 20 }],
    });
  });

  it("fails at the seeded rate with the configured failure status", () => {
    const random = createSeededRandom(4);
    const options = { ...DEFAULT_LIFECYCLE, failureRate: 0.3, failureStatus: 6 };
    const statuses = Array.from({ length: 2_000 }, () => createDefaultPlan(options, random).steps[0]?.status);
    const failures = statuses.filter((status) => status === 6).length;
    expect(failures / statuses.length).toBeGreaterThan(0.26);
    expect(failures / statuses.length).toBeLessThan(0.34);
    expect(statuses.every((status) => status === 6 || status === 20)).toBe(true);
  });

  it("ends each failed outcome of a mix at its own share, with its own timing", () => {
    const random = createSeededRandom(5);
    const options = {
      ...DEFAULT_LIFECYCLE,
      outcomes: [
        { status: 2, share: 0.1 },
        { status: 6, share: 0.05, timing: { kind: "fixed", ms: 9_000 } as const },
      ],
    };
    const steps = Array.from({ length: 4_000 }, () => createDefaultPlan(options, random).steps[0]);
    const share = (status: number) => steps.filter((step) => step?.status === status).length / steps.length;
    expect(share(2)).toBeGreaterThan(0.085);
    expect(share(2)).toBeLessThan(0.115);
    expect(share(6)).toBeGreaterThan(0.04);
    expect(share(6)).toBeLessThan(0.06);
    expect(share(20)).toBeCloseTo(1 - share(2) - share(6), 10);
    expect(steps.filter((step) => step?.status === 6).every((step) => step?.afterMs === 9_000)).toBe(true);
    expect(steps.filter((step) => step?.status !== 6).every((step) => step?.afterMs === 2_000)).toBe(true);
  });

  it("is reproducible from the seed", () => {
    const options = {
      timing: { kind: "lognormal", medianMs: 500, sigma: 0.8 } as const,
      failureRate: 0.5,
      failureStatus: 2,
    };
    const a = createSeededRandom(8);
    const b = createSeededRandom(8);
    expect(Array.from({ length: 50 }, () => createDefaultPlan(options, a))).toEqual(
      Array.from({ length: 50 }, () => createDefaultPlan(options, b)),
    );
  });

  it("counts only the leading steps due at once", () => {
    expect(
      countImmediateSteps({
        steps: [
          { afterMs: 0, status: 3 },
          { afterMs: 0, status: 31 },
          { afterMs: 5, status: 20 },
          { afterMs: 0, status: 8 },
        ],
      }),
    ).toBe(2);
  });

  it("refuses nonsense options when the service is built", () => {
    const time = createTimeKeeper({ mode: "virtual", startAt: 0 });
    const build = (failureRate: number, failureStatus: number) =>
      createAirtimeService({
        store: createMemoryStore(),
        clock: time.clock,
        scheduler: time.scheduler,
        ids: createSequentialIds(),
        random: createSeededRandom(1),
        events: { statusChanged: async () => {} },
        statusTable: DEFAULT_STATUS_TABLE,
        lifecycle: { timing: { kind: "fixed", ms: 1 }, failureRate, failureStatus },
      });
    expect(() => build(1.5, 2)).toThrow(RangeError);
    expect(() => build(0.1, 20)).toThrow(RangeError);
    expect(() => build(0.1, 6)).not.toThrow();
  });
});

describe("running a plan", () => {
  it("fails an order at the failure rate and refunds its wallet", async () => {
    const domain = await createTestDomain({ failureRate: 1 });
    await domain.service.placeOrder(command({ amountCents: 4_000 }));
    expect(await domain.balance()).toBe(START_BALANCE - 4_000);
    await domain.time.advance(2_000);
    expect(await domain.service.getOrderByReference(CUSTOMER, "ref-1")).toMatchObject({ status: 2, message: "Failed" });
    expect(await domain.balance()).toBe(START_BALANCE);
  });

  it("walks intermediate statuses, each step counted from the previous one", async () => {
    const domain = await createTestDomain();
    const plan = {
      steps: [
        { afterMs: 100, status: 3 },
        { afterMs: 200, status: 31, message: "With the operator" },
        { afterMs: 300, status: 20 },
      ],
    };
    await domain.service.placeOrder(command({}, { plan }));
    await domain.time.advance(10_000);
    const order = await domain.service.getOrderByReference(CUSTOMER, "ref-1");
    expect(order?.history.map((h) => [h.status, h.message, h.at - START])).toEqual([
      [0, "Pending", 0],
      [3, "Submitted", 100],
      [31, "With the operator", 300],
      [20, "Success", 600],
    ]);
    expect(domain.changes.map((c) => [c.previousStatus, c.order.status, c.final])).toEqual([
      [0, 3, false],
      [3, 31, false],
      [31, 20, true],
    ]);
  });

  it("applies leading steps due at once before placeOrder returns", async () => {
    const domain = await createTestDomain();
    const plan = {
      steps: [
        { afterMs: 0, status: 3 },
        { afterMs: 0, status: 6, message: "Operator timeout" },
      ],
    };
    const outcome = await domain.service.placeOrder(command({ amountCents: 7_000 }, { plan }));
    expect(outcome).toMatchObject({ kind: "placed", order: { status: 6, message: "Operator timeout" } });
    expect(domain.changes).toHaveLength(2);
    expect(domain.changes[1]?.wallet.balanceCents).toBe(START_BALANCE);
    expect(await domain.balance()).toBe(START_BALANCE);
    expect(await domain.scheduler.size()).toBe(0);
  });

  it("reverses a success later in the plan and refunds then", async () => {
    const domain = await createTestDomain();
    const plan = {
      steps: [
        { afterMs: 1_000, status: 20 },
        { afterMs: 5_000, status: 8 },
      ],
    };
    await domain.service.placeOrder(command({ amountCents: 3_000 }, { plan }));
    await domain.time.advance(1_000);
    expect(await domain.balance()).toBe(START_BALANCE - 3_000);
    await domain.time.advance(5_000);
    expect((await domain.service.getOrderByReference(CUSTOMER, "ref-1"))?.status).toBe(8);
    expect(await domain.balance()).toBe(START_BALANCE);
  });

  it("leaves an order with an empty plan pending until it is forced", async () => {
    const domain = await createTestDomain();
    await domain.service.placeOrder(command({}, { plan: { steps: [] } }));
    await domain.time.advance(7 * 24 * 3_600_000);
    expect((await domain.service.getOrderByReference(CUSTOMER, "ref-1"))?.status).toBe(0);
  });

  it("refuses a malformed plan before any money moves", async () => {
    const domain = await createTestDomain();
    await expect(
      domain.service.placeOrder(command({}, { plan: { steps: [{ afterMs: -5, status: 20 }] } })),
    ).rejects.toThrow(RangeError);
    expect(await domain.balance()).toBe(START_BALANCE);
  });
});

describe("forced transitions", () => {
  it("succeed, fail and reverse by the rules, refunding on failure and reversal", async () => {
    const domain = await createTestDomain();
    await domain.service.placeOrder(command({ reference: "a", amountCents: 1_000 }, { plan: { steps: [] } }));
    await domain.service.placeOrder(command({ reference: "b", amountCents: 2_000 }, { plan: { steps: [] } }));
    expect(await domain.service.forceTransition("ord_1", 20)).toMatchObject({
      kind: "transitioned",
      order: { status: 20 },
    });
    expect(await domain.service.forceTransition("ord_2", 2, "Declined")).toMatchObject({
      order: { status: 2, message: "Declined" },
    });
    expect(await domain.balance()).toBe(START_BALANCE - 1_000);
    expect(await domain.service.forceTransition("ord_1", 8)).toMatchObject({ kind: "transitioned" });
    expect(await domain.balance()).toBe(START_BALANCE);
  });

  it("refuse moves out of a final status, unknown statuses and unknown orders", async () => {
    const domain = await createTestDomain();
    await domain.service.placeOrder(command({}, { plan: { steps: [{ afterMs: 0, status: 2 }] } }));
    expect(await domain.service.forceTransition("ord_1", 20)).toEqual({ kind: "invalid_transition", from: 2, to: 20 });
    expect(await domain.service.forceTransition("ord_1", 8)).toEqual({ kind: "invalid_transition", from: 2, to: 8 });
    expect(await domain.service.forceTransition("ord_1", 4242)).toEqual({
      kind: "invalid_transition",
      from: 2,
      to: 4242,
    });
    expect(await domain.service.forceTransition("ord_404", 20)).toEqual({ kind: "not_found" });
  });

  it("make later planned steps that no longer apply be skipped silently", async () => {
    const domain = await createTestDomain();
    await domain.service.placeOrder(command({ amountCents: 5_000 }));
    await domain.service.forceTransition("ord_1", 2);
    await domain.time.advance(2_000);
    const order = await domain.service.getOrderByReference(CUSTOMER, "ref-1");
    expect(order?.history.map((h) => h.status)).toEqual([0, 2]);
    expect(await domain.balance()).toBe(START_BALANCE);
    expect(domain.changes).toHaveLength(1);
  });

  it("refund exactly once when two failures race on one order", async () => {
    const domain = await createTestDomain();
    await domain.service.placeOrder(command({ amountCents: 5_000 }, { plan: { steps: [] } }));
    const results = await Promise.all([
      domain.service.forceTransition("ord_1", 2),
      domain.service.forceTransition("ord_1", 6),
      domain.service.forceTransition("ord_1", 20),
      domain.time.advance(10),
    ]);
    expect(results.slice(0, 3).filter((r) => r?.kind === "transitioned")).toHaveLength(1);
    const order = await domain.store.getOrder("ord_1");
    expect(order?.history).toHaveLength(2);
    expect(await domain.balance()).toBe(order?.status === 20 ? START_BALANCE - 5_000 : START_BALANCE);
  });

  it("announce each change with the previous status, finality and the wallet after any refund", async () => {
    const domain = await createTestDomain();
    await domain.service.placeOrder(command({ amountCents: 5_000 }, { plan: { steps: [] } }));
    await domain.service.forceTransition("ord_1", 31);
    await domain.service.forceTransition("ord_1", 6);
    expect(
      domain.changes.map((c) => ({
        from: c.previousStatus,
        to: c.order.status,
        final: c.final,
        wallet: c.wallet.balanceCents,
      })),
    ).toEqual([
      { from: 0, to: 31, final: false, wallet: START_BALANCE - 5_000 },
      { from: 31, to: 6, final: true, wallet: START_BALANCE },
    ]);
  });

  it("stand even when a listener throws", async () => {
    const domain = await createTestDomain();
    domain.events.subscribe({
      statusChanged: async () => {
        throw new Error("listener down");
      },
    });
    await domain.service.placeOrder(command({}, { plan: { steps: [] } }));
    const original = console.error;
    const reported: unknown[] = [];
    console.error = (...args: unknown[]) => reported.push(args);
    try {
      expect(await domain.service.forceTransition("ord_1", 20)).toMatchObject({ kind: "transitioned" });
    } finally {
      console.error = original;
    }
    expect(reported).toHaveLength(1);
    expect((await domain.store.getOrder("ord_1"))?.status).toBe(20);
    expect(domain.changes).toHaveLength(1);
  });
});
