/**
 * Orders whose request went unanswered (a 5xx, a reset, a timeout after it
 * was sent) are unknown: the target may hold them or not. Before anything
 * is judged about money, lookups or webhooks, each is resolved — looked up
 * by its reference and, when the lookup states it is not found, sent once
 * more with its key and payload:
 *
 * - found by the lookup, or placed by the replay: a placed order, judged
 *   like any other (charged once, its final status, its webhook);
 * - a stated not-found and a replay answered as a failed order: never placed;
 * - anything else (no answer again, a refusal that proves nothing, no budget
 *   left for the replay): still unknown, and the balance allows for its
 *   amount either way.
 */
import { absorbOrderResult, lookupOrder, sendOrder } from "../commands/order-io.ts";
import { type HarnessModel, type ModelOrder, unknownOrders } from "../model.ts";
import type { RunContext } from "../run-context.ts";

export async function resolveUnknownOrders(model: HarnessModel, real: RunContext): Promise<void> {
  const unknown = unknownOrders(model);
  if (unknown.length === 0) return;
  real.transcript.step(
    `resolve ${unknown.length} order(s) left unknown by an unanswered request: look each up; where the lookup says not found, replay it with its key and payload`,
  );
  await Promise.all(unknown.map((order) => resolveUnknownOrder(model, real, order)));
}

async function resolveUnknownOrder(model: HarnessModel, real: RunContext, order: ModelOrder): Promise<void> {
  const lookup = await lookupOrder(model, real, order);
  if (lookup.kind !== "not_found" || !order.unknown) return;
  if (!model.config.budget.canSpend(order.amountCents)) {
    real.transcript.step(`${order.reference}: not found, and no budget left to replay it: it stays unknown`);
    return;
  }
  absorbOrderResult(model, real, order, await sendOrder(real, model, order));
  if (!order.committed && !order.unknown) {
    real.transcript.step(`${order.reference}: not found, and its replay placed nothing: it was never placed`);
  }
}
