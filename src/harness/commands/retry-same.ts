/**
 * Retry a keyed order with the same key and the same payload (what a client
 * does after a timeout). Under our spec the account may be written another
 * way (0712…, 254712…, +254712…): the same number, so the same payload.
 */
import type fc from "fast-check";
import { writeAccount } from "../accounts.ts";
import type { Fault } from "../faults.ts";
import { type HarnessModel, keyed, pick } from "../model.ts";
import type { RunContext } from "../run-context.ts";
import { absorbOrderResult, sendOrder } from "./order-io.ts";
import { faultText } from "./place-order.ts";

/** The writings of a Kenyan mobile number our spec treats as one account. */
export const RETRY_ACCOUNT_FORMS = ["local", "international", "e164"] as const;
export type RetryAccountForm = (typeof RETRY_ACCOUNT_FORMS)[number];

/**
 * The account written in `form`, or, when that is how it was placed, in the
 * next form that writes it otherwise: a drawn form is always a new writing.
 */
function anotherWriting(account: string, form: RetryAccountForm): string {
  const start = RETRY_ACCOUNT_FORMS.indexOf(form);
  for (let step = 0; step < RETRY_ACCOUNT_FORMS.length; step++) {
    const written = writeAccount(account, RETRY_ACCOUNT_FORMS[(start + step) % RETRY_ACCOUNT_FORMS.length]!);
    if (written !== account) return written;
  }
  return account;
}

export class RetrySameCommand implements fc.AsyncCommand<HarnessModel, RunContext> {
  private label: string | undefined;

  constructor(
    readonly orderIndex: number,
    readonly fault: Fault | undefined,
    /** The form the account is written in, under our spec; as placed when undefined. */
    readonly accountForm: RetryAccountForm | undefined = undefined,
  ) {}

  check(model: Readonly<HarnessModel>): boolean {
    const order = pick(keyed(model.orders), this.orderIndex);
    return order !== undefined && model.config.budget.canSpend(order.amountCents);
  }

  async run(model: HarnessModel, real: RunContext): Promise<void> {
    const order = pick(keyed(model.orders), this.orderIndex);
    if (order === undefined) return;
    // The interface states no account formats: only our spec makes another writing the same payload.
    const form = real.profile === "strict" ? this.accountForm : undefined;
    const account = form === undefined ? order.payload.account : anotherWriting(order.payload.account, form);
    const written = account === order.payload.account ? "" : ` (the account written as ${account})`;
    this.label = `retry order #${order.slot} with the same key and payload${written}${faultText(this.fault)}`;
    real.transcript.step(this.label);
    const result = await sendOrder(real, model, order, {
      ...(this.fault === undefined ? {} : { fault: this.fault }),
      ...(written === "" ? {} : { payload: { ...order.payload, account } }),
    });
    absorbOrderResult(model, real, order, result);
  }

  toString(): string {
    return this.label ?? `retry order @${this.orderIndex} with the same key and payload${faultText(this.fault)}`;
  }
}
