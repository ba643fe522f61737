/**
 * Two keyless orders for the run's customer, one right after the other. The
 * key is optional (§2.1, §4.4): a keyless order binds nothing, so the second
 * is a new order like the first, and a target that refuses it (409, or any
 * answer a valid new order must not get) fails the status code checks. Drawn
 * on its own because two keyless placements in one run are otherwise rare.
 */
import type fc from "fast-check";
import type { HarnessModel } from "../model.ts";
import type { RunContext } from "../run-context.ts";
import { absorbOrderResult, describeNewOrder, type NewOrderSpec, newOrder, sendOrder } from "./order-io.ts";

export class KeylessPairCommand implements fc.AsyncCommand<HarnessModel, RunContext> {
  private label: string | undefined;
  private readonly specs: readonly [NewOrderSpec, NewOrderSpec];

  constructor(first: NewOrderSpec, second: NewOrderSpec) {
    this.specs = [
      { ...first, keyIn: "none" },
      { ...second, keyIn: "none" },
    ];
  }

  check(model: Readonly<HarnessModel>): boolean {
    const [first, second] = this.specs;
    return (
      model.orders.length + 2 <= model.config.maxOrders &&
      model.config.budget.canSpend(first.amountCents + second.amountCents)
    );
  }

  async run(model: HarnessModel, real: RunContext): Promise<void> {
    const steps: string[] = [];
    for (const spec of this.specs) {
      const order = newOrder(model, real, spec);
      const step = `place keyless order #${order.slot} (${order.reference}): ${describeNewOrder(spec, model)}`;
      steps.push(step);
      real.transcript.step(step);
      absorbOrderResult(model, real, order, await sendOrder(real, model, order));
    }
    this.label = steps.join("; then ");
  }

  toString(): string {
    return (
      this.label ?? `place two keyless orders: ${this.specs.map((s) => describeNewOrder(s, undefined)).join("; ")}`
    );
  }
}
