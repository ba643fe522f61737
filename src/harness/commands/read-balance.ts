/** Read the balance: it must be the start minus the amounts of orders not refunded. */
import type fc from "fast-check";
import type { Fault } from "../faults.ts";
import { expectedBalance, formatKes, fundedBy, type HarnessModel } from "../model.ts";
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
    // Other lanes move the configured account mid-run: only the shortcode wallet, the run's own, is judged then.
    if (cents !== undefined && !real.accountMovedMidRun) judgeWalletBalance(model, real, cents, null);
    await judgeShortcodeWallet(model, real);
  }

  toString(): string {
    return `read the balance${faultText(this.fault)}`;
  }
}

/** One wallet's balance against the model: exact when every order's fate is known, else a lower bound. */
function judgeWalletBalance(model: HarnessModel, real: RunContext, cents: number, wallet: string | null): void {
  const expected = expectedBalance(model, wallet);
  const what = wallet === null ? "balance" : `wallet ${wallet}'s balance`;
  const charged = fundedBy(model.orders, wallet)
    .filter((o) => o.committed)
    .map((o) => `#${o.slot} ${formatKes(o.amountCents)}`);
  if (expected.exactCents !== undefined) {
    real.checker.that(
      "no_double_charge",
      cents === expected.exactCents,
      () =>
        `${what} is KES ${formatKes(cents)}, expected KES ${formatKes(expected.exactCents ?? 0)} (start ${formatKes(model.startBalanceCents)}, orders ${charged.join(", ") || "none"})`,
    );
    return;
  }
  real.checker.that(
    "no_double_charge",
    cents >= expected.minCents,
    () =>
      `${what} is KES ${formatKes(cents)}, below KES ${formatKes(expected.minCents)} — the least it can be if each order was debited once (start ${formatKes(model.startBalanceCents)}, orders ${charged.join(", ") || "none"})`,
  );
}

/**
 * The shortcode wallet, read through the admin API (the public balance is
 * the default wallet's): the orders that named it are debited — and
 * refunded — there, and nowhere else.
 */
export async function judgeShortcodeWallet(model: HarnessModel, real: RunContext): Promise<void> {
  const { shortcode } = model.config;
  const admin = real.target.admin;
  if (shortcode === undefined || admin === undefined || real.customerId === undefined) return;
  const customer = await admin.getCustomer(real.customerId);
  const wallet = customer.wallets.find((candidate) => candidate.shortcode === shortcode);
  real.checker.that(
    "no_double_charge",
    wallet !== undefined,
    () => `the customer's wallet ${shortcode} is gone: the admin API lists ${customer.wallets.length} wallet(s)`,
  );
  if (wallet !== undefined) judgeWalletBalance(model, real, Math.round(wallet.balance * 100), shortcode);
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
