/**
 * Await an order's final webhook mid-run: make the order final (advance the
 * virtual clock, or poll against a real one), read its status, then wait for
 * the webhook and hold it against the lookup. The end-of-run audit does the
 * same for every order; this step judges one earlier, between other steps.
 */
import type fc from "fast-check";
import { judgeFinalWebhook } from "../audit/webhook-judge.ts";
import { settleOrders } from "../audit/settle.ts";
import { committedOrders, type HarnessModel, pick, statusName } from "../model.ts";
import type { RunContext } from "../run-context.ts";

export class AwaitWebhookCommand implements fc.AsyncCommand<HarnessModel, RunContext> {
  private label: string | undefined;

  constructor(readonly orderIndex: number) {}

  check(model: Readonly<HarnessModel>): boolean {
    return model.config.webhooks && committedOrders(model).length > 0;
  }

  async run(model: HarnessModel, real: RunContext): Promise<void> {
    const order = pick(committedOrders(model), this.orderIndex);
    if (order === undefined || real.receiver === undefined) return;
    this.label = `await the final webhook of order #${order.slot} (${order.reference})`;
    real.transcript.step(this.label);
    const final = (await settleOrders(model, real, [order])).get(order);
    if (final === undefined) return; // never final within --final-timeout: nothing to expect yet
    // On a virtual clock a due webhook attempt runs only when the clock moves; advancing by 0 runs it.
    if (real.clock.mode === "virtual") await real.clock.advance(0);
    await judgeFinalWebhook(real, order.reference, final, statusName(model, final.status));
  }

  toString(): string {
    return this.label ?? `await the final webhook of order @${this.orderIndex}`;
  }
}
