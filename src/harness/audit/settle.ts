/**
 * Settling: bring every open order to a final status before anything is
 * judged about it — in parallel, bounded by `--final-timeout`. On a virtual
 * clock the harness advances the clock; on a real one it polls each order's
 * lookup with a short back-off, so settling takes as long as the target's
 * slowest final, not a fixed sleep.
 */
import { expectedStatus, type HarnessModel, isFinal, type ModelOrder } from "../model.ts";
import { type FoundLookup, lookupOrder } from "../commands/order-io.ts";
import type { RunContext } from "../run-context.ts";

/** First poll interval against a real clock, ms; it grows by half each poll up to `pollMs`. */
const FIRST_POLL_MS = 20;

/** The final lookup of each order that reached a final status within the timeout. */
export type Settled = Map<ModelOrder, FoundLookup>;

export async function settleOrders(
  model: HarnessModel,
  real: RunContext,
  orders: readonly ModelOrder[],
): Promise<Settled> {
  const settled: Settled = new Map();
  if (orders.length === 0) return settled;
  if (real.clock.mode === "virtual") {
    await advanceToPredictedFinals(model, real, orders);
    let open = [...orders];
    for (let attempt = 0; open.length > 0; attempt++) {
      await Promise.all(open.map((order) => lookUpFinal(model, real, order, settled)));
      open = open.filter((order) => !settled.has(order) && !order.evicted);
      if (open.length === 0 || attempt >= 10) break;
      model.elapsedMs += await real.clock.advance(Math.max(1000, Math.ceil(real.timeouts.finalMs / 10)));
    }
    return settled;
  }
  const deadline = Date.now() + real.timeouts.finalMs;
  await Promise.all(
    orders.map(async (order) => {
      let wait = FIRST_POLL_MS;
      for (;;) {
        if (await lookUpFinal(model, real, order, settled)) return;
        if (Date.now() + wait > deadline) return;
        await sleep(wait);
        wait = Math.min(real.timeouts.pollMs, Math.ceil(wait * 1.5));
      }
    }),
  );
  return settled;
}

async function advanceToPredictedFinals(model: HarnessModel, real: RunContext, orders: readonly ModelOrder[]) {
  const timing = model.config.timingMs;
  if (timing === undefined) return;
  let remaining = 0;
  for (const order of orders) {
    const predicted = expectedStatus(model, order);
    if (predicted === undefined || isFinal(model, predicted)) continue;
    remaining = Math.max(remaining, timing - (model.elapsedMs - (order.placedAtMs ?? model.elapsedMs)));
  }
  // Even 0: it runs the jobs already due (a webhook attempt after a forced outcome).
  model.elapsedMs += await real.clock.advance(remaining);
}

async function lookUpFinal(
  model: HarnessModel,
  real: RunContext,
  order: ModelOrder,
  settled: Settled,
): Promise<boolean> {
  const lookup = await lookupOrder(model, real, order);
  // A gone order ends its polling: no later lookup can show it.
  if (lookup.kind === "gone") return true;
  if (lookup.kind !== "found" || !isFinal(model, lookup.status)) return false;
  settled.set(order, lookup);
  return true;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
