/**
 * The case idempotency keys exist for: place a new order, lose the response
 * after the target committed it, then retry with the same key. The retry must
 * answer the id the target committed, and nothing may be charged twice.
 */
import type fc from "fast-check";
import { HarnessError } from "../checker.ts";
import type { HarnessModel } from "../model.ts";
import type { RunContext } from "../run-context.ts";
import { absorbOrderResult, describeNewOrder, type NewOrderSpec, newOrder, sendOrder } from "./order-io.ts";

export class RetryAfterLostResponseCommand implements fc.AsyncCommand<HarnessModel, RunContext> {
  private label: string | undefined;

  constructor(readonly spec: NewOrderSpec) {}

  check(model: Readonly<HarnessModel>): boolean {
    return model.orders.length < model.config.maxOrders && model.config.budget.canSpend(2 * this.spec.amountCents);
  }

  async run(model: HarnessModel, real: RunContext): Promise<void> {
    const order = newOrder(model, real, this.spec);
    this.label = `place order #${order.slot} (${order.reference}), lose the response, retry with the same key: ${describeNewOrder(this.spec, model)}`;
    real.transcript.step(this.label);
    // The retry's amount is reserved with the first: other lanes spend the budget while this one waits.
    if (!model.config.budget.reserve(order.amountCents)) throw new HarnessError("budget exhausted before the retry");
    const lost = await sendOrder(real, model, order, { fault: { kind: "drop_response" } });
    if (lost.kind !== "lost") throw new HarnessError("the fault proxy did not drop the response");
    absorbOrderResult(model, real, order, lost);
    absorbOrderResult(model, real, order, await sendOrder(real, model, order, { reserved: true }));
  }

  toString(): string {
    return this.label ?? `place, lose the response, retry: ${describeNewOrder(this.spec, undefined)}`;
  }
}
