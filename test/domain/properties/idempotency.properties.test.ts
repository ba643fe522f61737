/**
 * Idempotency properties: a key bound to one payload yields one order and
 * one debit whatever mix of concurrent retries, lookups and clock advances
 * reaches it; a changed payload under the same key changes nothing.
 */
import { fc, it } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { refundsWallet } from "../../../src/contract/status-codes.ts";
import type { Order } from "../../../src/domain/model.ts";
import type { PlaceOrderCommand, PlaceOrderOutcome } from "../../../src/domain/service-types.ts";
import { CUSTOMER, SHORTCODE } from "../support.ts";
import { formIndex, lifecycle, OTHER_SERVICES, safaricomNsn, writtenForm } from "./arbitraries.ts";
import { doubleDebitOnReplay, type MakeSystem, mismatchPlacesAnyway, realSystem } from "./systems.ts";

const START_BALANCE = 1_000_000;
const KEY = "3f0c2a7e-9f1b-4c55-8d55-1a1f3f5d2b10";

const payload = fc.record({
  nsn: safaricomNsn,
  amountCents: fc.integer({ min: 1_000, max: 100_000 }),
  reference: fc.string({ minLength: 1, maxLength: 12 }),
  useShortcode: fc.boolean(),
});
type Payload = typeof payload extends fc.Arbitrary<infer T> ? T : never;

const action = fc.oneof(
  fc.record({
    kind: fc.constant("retry" as const),
    form: formIndex,
    explicitService: fc.boolean(),
    copies: fc.integer({ min: 1, max: 4 }),
  }),
  fc.record({ kind: fc.constant("lookup" as const) }),
  // At most 30 minutes per advance: the whole run stays inside the 24 h retention.
  fc.record({ kind: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 1_800_000 }) }),
);
/** Batches run one after another; the actions inside a batch run concurrently. */
const batches = fc.array(fc.array(action, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 6 });

function placeCommand(p: Payload, form: number, explicitService: boolean): PlaceOrderCommand {
  return {
    customerId: CUSTOMER,
    request: {
      account: writtenForm(p.nsn, form),
      amountCents: p.amountCents,
      currency: "KES",
      reference: p.reference,
      idempotencyKey: KEY,
      ...(explicitService ? { service: "safaricom" as const } : {}),
      ...(p.useShortcode ? { shortcode: SHORTCODE } : {}),
    },
  };
}

function sameKeySamePayload(make: MakeSystem) {
  return fc.asyncProperty(payload, batches, lifecycle, async (p, plan, life) => {
    const system = await make({
      balanceCents: START_BALANCE,
      shortcodeBalanceCents: START_BALANCE,
      timing: { kind: "fixed", ms: life.delayMs },
      failureRate: life.failureRate,
      seed: life.seed,
    });
    const outcomes: PlaceOrderOutcome[] = [];
    const lookups: (Order | undefined)[] = [];
    for (const batch of plan) {
      await Promise.all(
        batch.map(async (step) => {
          switch (step.kind) {
            case "retry": {
              const calls = Array.from({ length: step.copies }, () =>
                system.service.placeOrder(placeCommand(p, step.form, step.explicitService)),
              );
              outcomes.push(...(await Promise.all(calls)));
              return;
            }
            case "lookup":
              lookups.push(await system.service.getOrderByReference(CUSTOMER, p.reference));
              return;
            case "advance":
              await system.time.advance(step.ms);
              return;
            default:
              throw new Error(`unknown step ${JSON.stringify(step satisfies never)}`);
          }
        }),
      );
    }
    const last = await system.service.placeOrder(placeCommand(p, 0, false));
    outcomes.push(last);

    expect(outcomes.filter((o) => o.kind === "placed")).toHaveLength(1);
    expect(outcomes.every((o) => o.kind === "placed" || o.kind === "replayed")).toBe(true);
    const ids = new Set(outcomes.map((o) => (o.kind === "placed" || o.kind === "replayed" ? o.order.id : o.kind)));
    expect(ids.size).toBe(1);
    const orders = await system.orders();
    expect(orders).toHaveLength(1);
    const order = orders[0]!;
    expect(ids.has(order.id)).toBe(true);
    for (const lookup of lookups) if (lookup !== undefined) expect(lookup.id).toBe(order.id);
    // A replay reports the latest status.
    if (last.kind === "replayed") expect(last.order.status).toBe(order.status);
    const charged = refundsWallet(system.statusTable, order.status) ? 0 : p.amountCents;
    expect(await system.balance(p.useShortcode ? SHORTCODE : null)).toBe(START_BALANCE - charged);
    expect(await system.balance(p.useShortcode ? null : SHORTCODE)).toBe(START_BALANCE);
  });
}

const change = fc.oneof(
  fc.record({ field: fc.constant("amount" as const), delta: fc.integer({ min: 1, max: 500 }) }),
  fc.record({ field: fc.constant("account" as const), nsn: safaricomNsn }),
  fc.record({ field: fc.constant("reference" as const), suffix: fc.string({ minLength: 1, maxLength: 4 }) }),
  fc.record({ field: fc.constant("service" as const), service: fc.constantFrom(...OTHER_SERVICES) }),
  fc.record({ field: fc.constant("wallet" as const) }),
);

function sameKeyOtherPayload(make: MakeSystem) {
  return fc.asyncProperty(
    payload,
    fc.array(change, { minLength: 1, maxLength: 5 }),
    fc.integer({ min: 0, max: 3_600_000 }),
    lifecycle,
    async (p, changes, waitMs, life) => {
      const system = await make({
        balanceCents: START_BALANCE,
        shortcodeBalanceCents: START_BALANCE,
        timing: { kind: "fixed", ms: life.delayMs },
        failureRate: life.failureRate,
        seed: life.seed,
      });
      const first = await system.service.placeOrder(placeCommand(p, 0, false));
      expect(first.kind).toBe("placed");
      await system.time.advance(waitMs);
      const snapshot = async () => ({
        orders: await system.orders(),
        balances: [await system.balance(null), await system.balance(SHORTCODE)],
      });
      const before = await snapshot();

      const changed = changes.map((c): PlaceOrderCommand => {
        const base = placeCommand(p, 2, false);
        switch (c.field) {
          case "amount":
            return { ...base, request: { ...base.request, amountCents: p.amountCents + c.delta } };
          case "account":
            return {
              ...base,
              request: {
                ...base.request,
                account: writtenForm(c.nsn === p.nsn ? `${c.nsn.slice(0, 8)}${(Number(c.nsn[8]) + 1) % 10}` : c.nsn, 1),
              },
            };
          case "reference":
            return { ...base, request: { ...base.request, reference: `${p.reference}${c.suffix}` } };
          case "service":
            return { ...base, request: { ...base.request, service: c.service } };
          case "wallet": {
            const { shortcode: _current, ...rest } = base.request;
            return { ...base, request: p.useShortcode ? rest : { ...rest, shortcode: SHORTCODE } };
          }
          default:
            throw new Error(`unknown change ${JSON.stringify(c satisfies never)}`);
        }
      });
      const outcomes = await Promise.all(changed.map((c) => system.service.placeOrder(c)));
      expect(outcomes.map((o) => o.kind)).toEqual(changed.map(() => "payload_mismatch"));
      expect(await snapshot()).toEqual(before);
    },
  );
}

describe("idempotency properties", () => {
  it("same key + same payload ⇒ one order, one debit, one id, whatever the interleaving", async () => {
    await fc.assert(sameKeySamePayload(realSystem), { numRuns: 60 });
  });

  it("same key + different payload ⇒ payload_mismatch and nothing changes", async () => {
    await fc.assert(sameKeyOtherPayload(realSystem), { numRuns: 60 });
  });
});

describe("the idempotency properties can fail", () => {
  it("catch a service that debits again on replay", async () => {
    const result = await fc.check(sameKeySamePayload(doubleDebitOnReplay), { numRuns: 100, seed: 1 });
    expect(result.failed).toBe(true);
    expect(result.counterexample).not.toBeNull();
    expect(fc.defaultReportMessage(result)).toMatch(/Counterexample/);
  });

  it("catch a service that places a new order when the payload differs", async () => {
    const result = await fc.check(sameKeyOtherPayload(mismatchPlacesAnyway), { numRuns: 100, seed: 1 });
    expect(result.failed).toBe(true);
    expect(result.counterexample).not.toBeNull();
  });
});
