/** Read the balance: it must be the start minus the amounts of orders not refunded. */
import type fc from "fast-check";
import type { Fault } from "../faults.ts";
import { expectedBalance, formatKes, type HarnessModel } from "../model.ts";
import type { RunContext } from "../run-context.ts";
import { faultText } from "./place-order.ts";

export class ReadBalanceCommand implements fc.AsyncCommand<HarnessModel, RunContext> {
  constructor(readonly fault: Fault | undefined) {}

  check(): boolean {
    return true;
  }

  async run(model: HarnessModel, real: RunContext): Promise<void> {
    real.transcript.step(this.toString());
    const cents = await readBalanceCents(real, this.fault);
    if (cents === undefined || real.accountMovedMidRun) return;
    const expected = expectedBalance(model);
    const charged = model.orders.filter((o) => o.committed).map((o) => `#${o.slot} ${formatKes(o.amountCents)}`);
    if (expected.exactCents !== undefined) {
      real.checker.that(
        "no_double_charge",
        cents === expected.exactCents,
        () =>
          `balance is KES ${formatKes(cents)}, expected KES ${formatKes(expected.exactCents ?? 0)} (start ${formatKes(model.startBalanceCents)}, orders ${charged.join(", ") || "none"})`,
      );
      return;
    }
    real.checker.that(
      "no_double_charge",
      cents >= expected.minCents,
      () =>
        `balance is KES ${formatKes(cents)}, below KES ${formatKes(expected.minCents)} — the least it can be if each order was debited once (start ${formatKes(model.startBalanceCents)}, orders ${charged.join(", ") || "none"})`,
    );
  }

  toString(): string {
    return `read the balance${faultText(this.fault)}`;
  }
}

/** The balance in cents, judged readable (no_double_charge); undefined when a fault lost the answer. */
export async function readBalanceCents(real: RunContext, fault?: Fault): Promise<number | undefined> {
  const result = await real.api.balance({ token: real.token, ...(fault === undefined ? {} : { fault }) });
  if (result.kind !== "response") return undefined;
  const { response } = result;
  const cents = real.provider.readBalanceCents(response.json);
  real.checker.that(
    "no_double_charge",
    response.status === 200 && cents !== undefined,
    () =>
      `the balance could not be read (at ${real.provider.pointer("balance")}): HTTP ${response.status} ${response.text.slice(0, 160)}`,
  );
  return cents;
}
