/**
 * Let time pass: advance the target's virtual clock; against a real clock,
 * watch the open orders (parallel lookups) until one changes status or the
 * (capped) time is up — never a blind sleep, and no wait at all when no order
 * is open, since then there is nothing to observe.
 */
import type fc from "fast-check";
import { sleep } from "../audit/settle.ts";
import { committedOrders, type HarnessModel, isFinal } from "../model.ts";
import type { RunContext } from "../run-context.ts";
import { lookupOrder } from "./order-io.ts";

const FIRST_POLL_MS = 20;

export class AdvanceTimeCommand implements fc.AsyncCommand<HarnessModel, RunContext> {
  constructor(readonly ms: number) {}

  check(): boolean {
    return true;
  }

  async run(model: HarnessModel, real: RunContext): Promise<void> {
    real.transcript.step(this.describe(real.clock.mode));
    if (real.clock.mode === "virtual") {
      model.elapsedMs += await real.clock.advance(this.ms);
      return;
    }
    const cap = Math.min(this.ms, real.timeouts.maxWaitMs);
    model.elapsedMs += await real.timings.time("steps: watch open orders", () => observeOpenOrders(model, real, cap));
  }

  private describe(mode: "virtual" | "real"): string {
    return mode === "virtual"
      ? `advance the clock by ${this.ms} ms`
      : `watch the open orders for up to ${this.ms} ms (capped) until one changes`;
  }

  toString(): string {
    return `advance time by ${this.ms} ms`;
  }
}

/** Polls the open orders until any status changes or `capMs` passed; resolves to the ms that passed. */
async function observeOpenOrders(model: HarnessModel, real: RunContext, capMs: number): Promise<number> {
  const open = committedOrders(model).filter((o) => o.lastStatus === undefined || !isFinal(model, o.lastStatus));
  if (open.length === 0) return 0;
  const started = Date.now();
  const before = open.map((o) => o.lastStatus);
  for (let wait = FIRST_POLL_MS; ; wait = Math.min(real.timeouts.pollMs, Math.ceil(wait * 1.5))) {
    const left = capMs - (Date.now() - started);
    if (left <= 0) break;
    await sleep(Math.min(wait, left));
    await Promise.all(open.map((order) => lookupOrder(model, real, order)));
    if (open.some((order, i) => order.lastStatus !== before[i])) break;
  }
  return Date.now() - started;
}
