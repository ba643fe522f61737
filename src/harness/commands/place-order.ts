/** Place a new order: a fresh reference and a fresh idempotency key, or none. */
import type fc from "fast-check";
import { describeFault, type Fault } from "../faults.ts";
import type { HarnessModel } from "../model.ts";
import type { RunContext } from "../run-context.ts";
import { absorbOrderResult, describeNewOrder, type NewOrderSpec, newOrder, sendOrder } from "./order-io.ts";

export class PlaceOrderCommand implements fc.AsyncCommand<HarnessModel, RunContext> {
  private label: string | undefined;

  constructor(
    readonly spec: NewOrderSpec,
    readonly fault: Fault | undefined,
  ) {}

  check(model: Readonly<HarnessModel>): boolean {
    return model.orders.length < model.config.maxOrders && model.config.budget.canSpend(this.spec.amountCents);
  }

  async run(model: HarnessModel, real: RunContext): Promise<void> {
    const order = newOrder(model, real, this.spec);
    this.label = `place order #${order.slot} (${order.reference}): ${describeNewOrder(this.spec, model)}${faultText(this.fault)}`;
    real.transcript.step(this.label);
    const result = await sendOrder(real, model, order, this.fault === undefined ? {} : { fault: this.fault });
    absorbOrderResult(model, real, order, result);
  }

  toString(): string {
    return this.label ?? `place order: ${describeNewOrder(this.spec, undefined)}${faultText(this.fault)}`;
  }
}

export function faultText(fault: Fault | undefined): string {
  return fault === undefined ? "" : ` [${describeFault(fault)}]`;
}
