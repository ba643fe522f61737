/** Retry an order with the same key and the same payload (what a client does after a timeout). */
import type fc from "fast-check";
import type { Fault } from "../faults.ts";
import { type HarnessModel, pick } from "../model.ts";
import type { RunContext } from "../run-context.ts";
import { absorbOrderResult, sendOrder } from "./order-io.ts";
import { faultText } from "./place-order.ts";

export class RetrySameCommand implements fc.AsyncCommand<HarnessModel, RunContext> {
  private label: string | undefined;

  constructor(
    readonly orderIndex: number,
    readonly fault: Fault | undefined,
  ) {}

  check(model: Readonly<HarnessModel>): boolean {
    const order = pick(model.orders, this.orderIndex);
    return order !== undefined && model.config.budget.canSpend(order.amountCents);
  }

  async run(model: HarnessModel, real: RunContext): Promise<void> {
    const order = pick(model.orders, this.orderIndex);
    if (order === undefined) return;
    this.label = `retry order #${order.slot} with the same key and payload${faultText(this.fault)}`;
    real.transcript.step(this.label);
    const result = await sendOrder(real, model, order, this.fault === undefined ? {} : { fault: this.fault });
    absorbOrderResult(model, real, order, result);
  }

  toString(): string {
    return this.label ?? `retry order @${this.orderIndex} with the same key and payload${faultText(this.fault)}`;
  }
}
