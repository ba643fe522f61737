/**
 * An order beyond a balance, provoked without admin powers: the harness
 * reads a balance it may read and orders one shilling more, inside the
 * order limits. Under `strict` the status-codes tour does it from the
 * smallest wallet of the run's customer and expects our spec's 402; under
 * `interface` it does it from the second customer (`--other-token`), whose
 * balance a CI setup keeps small, and judges what the interface states (§7):
 * the answer is a failed order — no `id`, with the status and code the
 * profile states for an insufficient balance where it states them — and it
 * leaves no order and no debit behind.
 */
import type { Recipient } from "../accounts.ts";
import type { PublicApi } from "../api.ts";
import type { Checker } from "../checker.ts";
import type { HarnessContext } from "../harness-context.ts";
import { orderAmounts, smallestOrder } from "../harness-context.ts";
import { answerRefusalMismatch } from "../stated-refusal.ts";
import type { Transcript } from "../transcript.ts";

export interface AmountLimits {
  readonly minAmount: number;
  readonly maxAmount: number;
}

/**
 * The smallest whole amount (KES) above a balance that an order may ask
 * for, or undefined when every allowed order fits in the balance.
 *
 * @example
 * amountBeyond(100_000, { minAmount: 10, maxAmount: 5000 }); // 1001
 * amountBeyond(900_000, { minAmount: 10, maxAmount: 5000 }); // undefined
 */
export function amountBeyond(balanceCents: number, limits: AmountLimits): number | undefined {
  const amount = Math.max(Math.ceil(limits.minAmount), Math.floor(balanceCents / 100) + 1);
  return amount > limits.maxAmount ? undefined : amount;
}

/**
 * The §7 rule (an order beyond the balance is a failed order) left untried:
 * the check it belongs to passes with a note giving the reason and the way
 * to provoke it, so a silent gap never reads as a pass.
 */
export function noteUnprovokedBeyondBalance(
  harness: HarnessContext,
  checker: Checker,
  check: "status_code_conformance" | "response_schema_conformance",
  reason: string,
): void {
  const largest = `KES ${orderAmounts(harness).maxAmount}`;
  const way =
    check === "response_schema_conformance"
      ? `give --other-token for a customer whose balance is below the largest order (${largest})`
      : `run with a customer whose smallest wallet holds less than ${largest}, or give admin powers (an empty wallet)`;
  const simulator =
    harness.target.admin === undefined
      ? ""
      : "; on our simulator the magic account 0700000010 always answers an insufficient balance (docs/scenarios.md)";
  checker.note(
    check,
    `the §7 insufficient-balance rule was not provoked: ${reason}; to provoke it, ${way}${simulator}`,
  );
}

export interface BeyondBalanceVisit {
  readonly harness: HarnessContext;
  readonly api: PublicApi;
  readonly checker: Checker;
  readonly transcript: Transcript;
  readonly prefix: string;
  readonly recipient: Recipient | undefined;
}

async function balanceCentsOf(visit: BeyondBalanceVisit, token: string): Promise<number | undefined> {
  const result = await visit.api.balance({ token });
  if (result.kind !== "response" || result.response.status !== 200) return undefined;
  return visit.harness.provider.readBalanceCents(result.response.json);
}

/**
 * Under `interface`: the second customer orders one shilling more than it
 * holds. Nothing happens when there is no second customer, its balance
 * cannot be read (an expired fixed token), or every order the domain allows
 * fits in it.
 */
export async function orderBeyondSecondCustomer(visit: BeyondBalanceVisit): Promise<void> {
  const { harness, api, checker, transcript } = visit;
  const { provider } = harness;
  const other = await harness.target.otherSession();
  const unprovoked = (reason: string) =>
    noteUnprovokedBeyondBalance(harness, checker, "response_schema_conformance", reason);
  if (other === undefined) return unprovoked("no second customer (--other-token) to order beyond its balance");
  const before = await balanceCentsOf(visit, other.token);
  if (before === undefined) return unprovoked("the second customer's balance could not be read");
  const amount = amountBeyond(before, orderAmounts(harness));
  if (amount === undefined) {
    return unprovoked(
      `the second customer holds KES ${before / 100}, more than the largest allowed order (KES ${orderAmounts(harness).maxAmount})`,
    );
  }
  // Checked, not reserved: the order is meant to be refused, and a refusal spends nothing of the run's budget.
  if (!harness.budget.canSpend(amount * 100)) return;
  const reference = `${visit.prefix}-beyond`;
  transcript.step(`the second customer orders KES ${amount}, beyond its balance of KES ${before / 100}`);
  const result = await api.sendAirtime({
    token: other.token,
    body: { ...smallestOrder(harness, visit.recipient, reference), amount },
    key: `${visit.prefix}-b`,
  });
  if (result.kind !== "response") return;
  if (provider.readOrder("order", result.response.json).id !== undefined) harness.budget.reserve(amount * 100);
  const answer = answerRefusalMismatch(provider, "insufficientBalance", result.response, "order", true);
  checker.that(
    "response_schema_conformance",
    answer === undefined,
    () => `an order beyond the balance is a failed order, without an id (§7): ${answer}`,
  );
  transcript.step(`look up ${reference}: a failed order leaves nothing behind`);
  const lookup = await api.lookup(reference, { token: other.token });
  if (lookup.kind === "response") {
    const absent = answerRefusalMismatch(provider, "notFound", lookup.response, "lookup");
    checker.that(
      "response_schema_conformance",
      absent === undefined,
      () => `the failed order's reference ${reference} (§7): ${absent}`,
    );
  }
  // The second customer's own orders (isolation probes) only ever come back as refunds: a debit shows as a drop.
  const after = await balanceCentsOf(visit, other.token);
  if (after === undefined || harness.sharedAccount) return;
  checker.that(
    "no_double_charge",
    after >= before,
    () => `a failed order moved money: the balance fell from KES ${before / 100} to KES ${after / 100}`,
  );
}
