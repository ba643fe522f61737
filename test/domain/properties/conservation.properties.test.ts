/**
 * Money and status properties over random command sequences: placing orders
 * (some with reused references or keys, some with scripted plans), forced
 * transitions (succeed, fail, reverse, …), lookups and clock advances, run in
 * concurrent batches.
 *
 * - Conservation: for every wallet, start − Σ amounts of its orders not in a
 *   refunding status = balance, after every batch; no balance below zero.
 * - A final status never changes, except Success → Reversed.
 */
import { fc, it } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { isFinalStatus, REVERSED_STATUS, refundsWallet, SUCCESS_STATUS } from "../../../src/contract/status-codes.ts";
import type { OutcomePlan } from "../../../src/domain/model.ts";
import { CUSTOMER, SHORTCODE } from "../support.ts";
import { formIndex, safaricomNsn, writtenForm } from "./arbitraries.ts";
import { doubleRefund, type MakeSystem, realSystem, type System, transitionIgnoresRules } from "./systems.ts";

const START = { default: 200_000, shortcode: 60_000 } as const;
const STATUSES = [0, 3, 31, 20, 2, 6, 8, 1] as const;

const plan: fc.Arbitrary<OutcomePlan | undefined> = fc.option(
  fc.record({
    steps: fc.array(fc.record({ afterMs: fc.constantFrom(0, 0, 500, 2_000), status: fc.constantFrom(...STATUSES) }), {
      maxLength: 3,
    }),
  }),
  { nil: undefined },
);

const command = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("place" as const),
      nsn: safaricomNsn,
      form: formIndex,
      amountCents: fc.integer({ min: 1_000, max: 40_000 }),
      // Few references and keys, so duplicates and replays happen often.
      reference: fc.integer({ min: 0, max: 9 }),
      key: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
      useShortcode: fc.boolean(),
      plan,
      // A scenario's forced insufficient balance, now and then.
      forceInsufficient: fc.integer({ min: 0, max: 7 }).map((n) => n === 0),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("force" as const),
      order: fc.nat(),
      status: fc.constantFrom(SUCCESS_STATUS, 2, 6, REVERSED_STATUS, 3, 1),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 3_000 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("lookup" as const), reference: fc.integer({ min: 0, max: 9 }) }),
  },
);
type Command = typeof command extends fc.Arbitrary<infer T> ? T : never;

const run = fc.record({
  batches: fc.array(fc.array(command, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 10 }),
  failureRate: fc.constantFrom(0, 0.3, 1),
  seed: fc.integer({ min: 0, max: 1_000 }),
});

async function execute(system: System, step: Command): Promise<void> {
  switch (step.kind) {
    case "place":
      await system.service.placeOrder({
        customerId: CUSTOMER,
        request: {
          account: writtenForm(step.nsn, step.form),
          amountCents: step.amountCents,
          currency: "KES",
          reference: `ref-${step.reference}`,
          ...(step.key === undefined ? {} : { idempotencyKey: `key-${step.key}` }),
          ...(step.useShortcode ? { shortcode: SHORTCODE } : {}),
        },
        ...(step.plan === undefined ? {} : { plan: step.plan }),
        ...(step.forceInsufficient ? { forceInsufficient: true } : {}),
      });
      return;
    case "force": {
      const orders = await system.orders();
      const target = orders[step.order % Math.max(orders.length, 1)];
      if (target !== undefined) await system.service.forceTransition(target.id, step.status);
      return;
    }
    case "advance":
      await system.time.advance(step.ms);
      return;
    case "lookup":
      await system.service.getOrderByReference(CUSTOMER, `ref-${step.reference}`);
      return;
    default:
      throw new Error(`unknown command ${JSON.stringify(step satisfies never)}`);
  }
}

async function expectConserved(system: System): Promise<void> {
  const orders = await system.orders();
  for (const [shortcode, start] of [
    [null, START.default],
    [SHORTCODE, START.shortcode],
  ] as const) {
    const held = orders
      .filter((order) => order.shortcode === shortcode && !refundsWallet(system.statusTable, order.status))
      .reduce((sum, order) => sum + order.amountCents, 0);
    const balance = await system.balance(shortcode);
    expect(balance).toBeGreaterThanOrEqual(0);
    expect(balance, `wallet ${shortcode ?? "default"}`).toBe(start - held);
  }
}

async function expectFinalStatusesKept(system: System): Promise<void> {
  for (const order of await system.orders()) {
    const statuses = order.history.map((entry) => entry.status);
    for (let i = 1; i < statuses.length; i++) {
      const from = statuses[i - 1]!;
      const to = statuses[i]!;
      if (isFinalStatus(system.statusTable, from)) {
        expect(`${order.id}: ${from} → ${to}`).toBe(`${order.id}: ${SUCCESS_STATUS} → ${REVERSED_STATUS}`);
      }
    }
    expect(order.status).toBe(statuses.at(-1));
  }
}

function sequenceProperty(make: MakeSystem, check: (system: System) => Promise<void>) {
  return fc.asyncProperty(run, async ({ batches, failureRate, seed }) => {
    const system = await make({
      balanceCents: START.default,
      shortcodeBalanceCents: START.shortcode,
      timing: { kind: "uniform", minMs: 0, maxMs: 2_500 },
      failureRate,
      seed,
    });
    for (const batch of batches) {
      await Promise.all(batch.map((step) => execute(system, step)));
      await check(system);
    }
    // Let every plan finish, then check once more.
    await system.time.advance(60_000);
    await check(system);
  });
}

const conservation = (make: MakeSystem) => sequenceProperty(make, expectConserved);
const finalStatusesKept = (make: MakeSystem) => sequenceProperty(make, expectFinalStatusesKept);

describe("money and status properties", () => {
  it("conserve every wallet's balance over random command sequences", async () => {
    await fc.assert(conservation(realSystem), { numRuns: 80 });
  });

  it("never change a final status, except Success → Reversed", async () => {
    await fc.assert(finalStatusesKept(realSystem), { numRuns: 80 });
  });
});

describe("the money and status properties can fail", () => {
  it("catch a store that refunds twice", async () => {
    const result = await fc.check(conservation(doubleRefund), { numRuns: 200, seed: 1 });
    expect(result.failed).toBe(true);
    expect(result.counterexample).not.toBeNull();
  });

  it("catch a transition that ignores the rules", async () => {
    const result = await fc.check(finalStatusesKept(transitionIgnoresRules), { numRuns: 200, seed: 1 });
    expect(result.failed).toBe(true);
    expect(result.counterexample).not.toBeNull();
  });

  it("catch that same rule-breaking transition through the balance too", async () => {
    const result = await fc.check(conservation(transitionIgnoresRules), { numRuns: 200, seed: 1 });
    expect(result.failed).toBe(true);
  });
});
