/** Look an order up by its reference (GET /v1/airtime/{reference}). */
import type fc from "fast-check";
import type { Fault } from "../faults.ts";
import { type HarnessModel, pick } from "../model.ts";
import type { RunContext } from "../run-context.ts";
import { lookupOrder } from "./order-io.ts";
import { faultText } from "./place-order.ts";

export class LookupCommand implements fc.AsyncCommand<HarnessModel, RunContext> {
  private label: string | undefined;

  constructor(
    readonly orderIndex: number,
    readonly fault: Fault | undefined,
  ) {}

  check(model: Readonly<HarnessModel>): boolean {
    return model.orders.length > 0;
  }

  async run(model: HarnessModel, real: RunContext): Promise<void> {
    const order = pick(model.orders, this.orderIndex);
    if (order === undefined) return;
    this.label = `look up order #${order.slot} by reference ${order.reference}${faultText(this.fault)}`;
    real.transcript.step(this.label);
    await lookupOrder(model, real, order, this.fault);
  }

  toString(): string {
    return this.label ?? `look up order @${this.orderIndex}${faultText(this.fault)}`;
  }
}
