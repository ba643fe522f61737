/**
 * The end of every model run: settle every order the run placed, then audit
 * each one — its history is a legal path, its final status survives a pause
 * (only Success → Reversed may follow), every final status has a signed
 * webhook agreeing with the lookup — and judge the balance exactly: the start
 * minus every order not refunded.
 */
import { isAllowedTransition, refundsWallet } from "../../contract/status-codes.ts";
import { type FoundLookup, lookupOrder } from "../commands/order-io.ts";
import { readBalanceCents } from "../commands/read-balance.ts";
import { committedOrders, formatKes, type HarnessModel, isFinal, type ModelOrder, statusName } from "../model.ts";
import type { RunContext } from "../run-context.ts";
import { settleOrders, sleep } from "./settle.ts";
import { judgeFinalWebhook } from "./webhook-judge.ts";

/** Shortest pause before a final status is read again against a real clock, ms. */
const MIN_REREAD_PAUSE_MS = 100;
const MAX_REREAD_PAUSE_MS = 250;

export async function auditRun(model: HarnessModel, r: RunContext): Promise<void> {
  const orders = committedOrders(model);
  r.transcript.step(
    orders.length === 0
      ? "settle: no order was placed"
      : `settle: poll ${orders.length === 1 ? "the order" : `all ${orders.length} orders`} to a final status, then audit ${orders.length === 1 ? "it" : "them"}`,
  );
  const started = Date.now();
  const settled = await r.timings.time("audit: settle orders", () => settleOrders(model, r, orders));
  const settleMs = Date.now() - started;
  // Transitions are our spec's: the interface does not show them (§3).
  if (r.profile === "strict") for (const [order, found] of settled) judgeHistory(model, r, order, found);
  if (r.receiver !== undefined) {
    if (r.clock.mode === "virtual") await r.clock.advance(0);
    await r.timings.time("audit: webhook waits", () =>
      Promise.all(
        [...settled].map(([order, body]) =>
          judgeFinalWebhook(r, order.reference, body, statusName(model, body.status)),
        ),
      ),
    );
  }
  if (settled.size > 0) {
    r.transcript.step("read every final status again after a pause: it has not changed (only Success → Reversed)");
    await r.timings.time("audit: pause before re-read", () => pause(model, r, settleMs));
    await r.timings.time("audit: re-read finals", () =>
      Promise.all([...settled].map(([order, body]) => rereadFinal(model, r, order, body))),
    );
  }
  r.transcript.step("read the balance: the start minus every order not refunded");
  await r.timings.time("audit: balance", () => judgeBalance(model, r));
}

/** The lookup's history starts pending, moves only by allowed transitions, and ends at the status reported. */
function judgeHistory(model: HarnessModel, r: RunContext, order: ModelOrder, found: FoundLookup): void {
  const { body } = found;
  // The shape is response_schema_conformance's to judge; a profile may leave the history out.
  if (!Array.isArray(body.history)) return;
  const statuses = (body.history as readonly { status?: unknown }[]).map((entry) => entry.status);
  const table = model.config.statusTable;
  const problems: string[] = [];
  if (statuses.length === 0) problems.push("it is empty");
  else if (typeof statuses[0] !== "number" || table.get(statuses[0])?.class !== "pending") {
    problems.push(`it starts at ${String(statuses[0])}, not a pending status`);
  }
  for (let i = 1; i < statuses.length; i++) {
    const from = statuses[i - 1];
    const to = statuses[i];
    if (typeof from !== "number" || typeof to !== "number" || !isAllowedTransition(table, from, to)) {
      problems.push(`${String(from)} → ${String(to)} is not an allowed transition`);
    }
  }
  if (statuses.length > 0 && statuses.at(-1) !== body.status) {
    problems.push(`it ends at ${String(statuses.at(-1))} but the status is ${body.status}`);
  }
  r.checker.that(
    "status_monotonic",
    problems.length === 0,
    () =>
      `${order.reference}: the lookup's history [${statuses.join(" → ")}] is not a legal path: ${problems.join("; ")}`,
  );
  r.checker.tally("status_monotonic", "histories");
}

async function pause(model: HarnessModel, r: RunContext, settleMs: number): Promise<void> {
  if (r.clock.mode === "virtual") {
    model.elapsedMs += await r.clock.advance(model.config.timingMs ?? 1000);
    return;
  }
  // A quarter of the time the orders took to settle (at least a moment, at most a quarter second): a late
  // change shows within the target's own latency, and the pause never dominates a run.
  await sleep(Math.max(MIN_REREAD_PAUSE_MS, Math.min(settleMs / 4, MAX_REREAD_PAUSE_MS)));
}

async function rereadFinal(model: HarnessModel, r: RunContext, order: ModelOrder, first: FoundLookup): Promise<void> {
  // lookupOrder holds the new status against the settled one (status_monotonic).
  const again = await lookupOrder(model, r, order);
  if (again.kind !== "found") return;
  r.checker.tally("status_monotonic", statusName(model, first.status));
  if (again.status !== first.status && isFinal(model, again.status)) {
    // A legal reversal: its own final status needs its own webhook.
    await judgeFinalWebhook(r, order.reference, again, statusName(model, again.status));
  }
}

async function judgeBalance(model: HarnessModel, r: RunContext): Promise<void> {
  const cents = await readBalanceCents(r);
  if (cents === undefined) return;
  const table = model.config.statusTable;
  const orders = committedOrders(model);
  const kept = orders.filter((o) => o.lastStatus === undefined || !refundsWallet(table, o.lastStatus));
  const debit = kept.reduce((sum, o) => sum + o.amountCents, 0);
  const expected = model.startBalanceCents - debit;
  const ledger = orders
    .map(
      (o) =>
        `#${o.slot} ${formatKes(o.amountCents)} ${o.lastStatus === undefined ? "?" : statusName(model, o.lastStatus)}`,
    )
    .join(", ");
  if (model.config.exactBalance) {
    r.checker.that(
      "no_double_charge",
      cents === expected,
      () =>
        `after settling, the balance is KES ${formatKes(cents)}, expected exactly KES ${formatKes(expected)}: start ${formatKes(model.startBalanceCents)} minus the orders not refunded (${ledger || "none"})`,
    );
  } else {
    const least = model.startBalanceCents - orders.reduce((sum, o) => sum + o.amountCents, 0);
    r.checker.that(
      "no_double_charge",
      cents >= least,
      () =>
        `the balance is KES ${formatKes(cents)}, below KES ${formatKes(least)} — the least it can be if each order was debited once (start ${formatKes(model.startBalanceCents)}, orders ${ledger || "none"})`,
    );
  }
  for (const order of orders) {
    if (order.lastStatus !== undefined && isFinal(model, order.lastStatus)) {
      r.checker.tally("no_double_charge", statusName(model, order.lastStatus));
    }
  }
}
