/**
 * Force an order's outcome through the admin API (simulator powers only):
 * failures and reversals must refund, and a final status must stay final.
 */
import type fc from "fast-check";
import type { TransitionAction } from "../../contract/admin-schemas.ts";
import {
  FAILED_STATUS,
  isAllowedTransition,
  REVERSED_STATUS,
  SUCCESS_STATUS,
  TIMEOUT_STATUS,
} from "../../contract/status-codes.ts";
import { committedOrders, expectedStatus, type HarnessModel, pick } from "../model.ts";
import type { RunContext } from "../run-context.ts";

export const FORCED_ACTIONS: readonly TransitionAction[] = ["succeed", "fail", "timeout", "reverse"];

const STATUS_OF: Readonly<Record<TransitionAction, number>> = {
  succeed: SUCCESS_STATUS,
  fail: FAILED_STATUS,
  timeout: TIMEOUT_STATUS,
  reverse: REVERSED_STATUS,
};

export class ForceOutcomeCommand implements fc.AsyncCommand<HarnessModel, RunContext> {
  private label: string | undefined;

  constructor(
    readonly orderIndex: number,
    readonly action: TransitionAction,
  ) {}

  check(model: Readonly<HarnessModel>): boolean {
    return model.config.admin && committedOrders(model).length > 0;
  }

  async run(model: HarnessModel, real: RunContext): Promise<void> {
    const order = pick(committedOrders(model), this.orderIndex);
    if (order === undefined || order.id === undefined || real.target.admin === undefined) return;
    const target = STATUS_OF[this.action];
    // Predicted when the model can know it; otherwise the target's own current status, never a stale observation.
    const current = expectedStatus(model, order) ?? (await currentStatus(real, order.reference));
    const allowed = current !== undefined && isAllowedTransition(model.config.statusTable, current, target);
    this.label = `force order #${order.slot} to ${this.action} (${target}) via the admin API${allowed ? "" : ` — not allowed from ${current}, skipped`}`;
    real.transcript.step(this.label);
    if (!allowed) return;
    const result = await real.target.admin.transition(order.id, this.action);
    // On a real clock the order may have become final in between: the simulator refuses, nothing changed.
    if (result.kind === "transitioned") order.forcedStatus = target;
  }

  toString(): string {
    return this.label ?? `force order @${this.orderIndex} to ${this.action}`;
  }
}

async function currentStatus(real: RunContext, reference: string): Promise<number | undefined> {
  const orders = await real.target.admin?.listOrders({
    reference,
    ...(real.customerId === undefined ? {} : { customer: real.customerId }),
  });
  return orders?.[0]?.status;
}
