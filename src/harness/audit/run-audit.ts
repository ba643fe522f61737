/**
 * The end of every model run: settle every order the run placed, then audit
 * each one — its history is a legal path, its final status survives a pause
 * (only Success → Reversed may follow), every final status has a signed
 * webhook agreeing with the lookup. The balance, exactly the start minus
 * every order not refunded, is judged by `judgeBalance`: after one run, or
 * after a wave of runs that shared the account (balance-waves.ts).
 */
import { isAllowedTransition, refundsWallet } from "../../contract/status-codes.ts";
import { absorbOrderResult, type FoundLookup, lookupOrder, sendOrder } from "../commands/order-io.ts";
import { judgeShortcodeWallet, readBalanceCents } from "../commands/read-balance.ts";
import {
  committedOrders,
  fundedBy,
  formatKes,
  type HarnessModel,
  isFinal,
  type ModelOrder,
  statusName,
  unknownOrders,
} from "../model.ts";
import type { RunContext } from "../run-context.ts";
import { settleOrders, sleep } from "./settle.ts";
import { judgeFinalWebhook } from "./webhook-judge.ts";
import { clockScaleMs } from "../contract-settings.ts";

/** Shortest pause before a final status is read again against a real clock, ms. */
const MIN_REREAD_PAUSE_MS = 100;
const MAX_REREAD_PAUSE_MS = 250;
/** Rounds of looking up and reading again before a balance is called wrong. */
const BALANCE_REREADS = 3;
/** Earlier orders refunded since the start that the balance may reflect in any combination (2^n sums). */
const MAX_LATER_REFUNDS = 12;

export async function auditRun(model: HarnessModel, real: RunContext): Promise<void> {
  await real.timings.time("audit: resolve unknown orders", () => resolveUnknownOrders(model, real));
  const orders = committedOrders(model);
  real.transcript.step(
    orders.length === 0
      ? "settle: no order was placed"
      : `settle: poll ${orders.length === 1 ? "the order" : `all ${orders.length} orders`} to a final status, then audit ${orders.length === 1 ? "it" : "them"}`,
  );
  const started = Date.now();
  const settled = await real.timings.time("audit: settle orders", () => settleOrders(model, real, orders));
  const settleMs = Date.now() - started;
  // Transitions are our spec's: the interface does not show them (§3).
  if (real.profile === "strict") for (const [order, found] of settled) judgeHistory(model, real, order, found);
  if (real.receiver !== undefined) {
    if (real.clock.mode === "virtual") await real.clock.advance(0);
    await real.timings.time("audit: webhook waits", () =>
      Promise.all(
        [...settled].map(([order, body]) =>
          judgeFinalWebhook(real, order.reference, body, statusName(model, body.status)),
        ),
      ),
    );
  }
  if (settled.size > 0) {
    real.transcript.step("read every final status again after a pause: it has not changed (only Success → Reversed)");
    await real.timings.time("audit: pause before re-read", () => pause(model, real, settleMs));
    await real.timings.time("audit: re-read finals", () =>
      Promise.all([...settled].map(([order, body]) => rereadFinal(model, real, order, body))),
    );
  }
}

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
async function resolveUnknownOrders(model: HarnessModel, real: RunContext): Promise<void> {
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

/** The lookup's history starts pending, moves only by allowed transitions, and ends at the status reported. */
function judgeHistory(model: HarnessModel, real: RunContext, order: ModelOrder, found: FoundLookup): void {
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
  real.checker.that(
    "status_monotonic",
    problems.length === 0,
    () =>
      `${order.reference}: the lookup's history [${statuses.join(" → ")}] is not a legal path: ${problems.join("; ")}`,
  );
  real.checker.tally("status_monotonic", "histories");
}

async function pause(model: HarnessModel, real: RunContext, settleMs: number): Promise<void> {
  if (real.clock.mode === "virtual") {
    model.elapsedMs += await real.clock.advance(clockScaleMs(model.config.timingMs));
    return;
  }
  // A quarter of the time the orders took to settle (at least a moment, at most a quarter second): a late
  // change shows within the target's own latency, and the pause never dominates a run.
  await sleep(Math.max(MIN_REREAD_PAUSE_MS, Math.min(settleMs / 4, MAX_REREAD_PAUSE_MS)));
}

async function rereadFinal(
  model: HarnessModel,
  real: RunContext,
  order: ModelOrder,
  first: FoundLookup,
): Promise<void> {
  // lookupOrder holds the new status against the settled one (status_monotonic).
  const again = await lookupOrder(model, real, order);
  if (again.kind !== "found") return;
  real.checker.tally("status_monotonic", statusName(model, first.status));
  if (again.status !== first.status && isFinal(model, again.status)) {
    // A legal reversal: its own final status needs its own webhook.
    await judgeFinalWebhook(real, order.reference, again, statusName(model, again.status));
  }
}

/**
 * The balance, judged against the orders' statuses: of one run, or of every
 * run of a wave that shared the account and its starting balance (`models`
 * all start from the same balance). An order counted as kept (Success) may
 * legally move on after it settled — Success → Reversed, and the refund with
 * it — so before a balance is called wrong, the kept orders are looked up
 * again and the balance read again: only a balance that still disagrees with
 * the statuses as they now are is a failure.
 */
export async function judgeBalance(models: readonly HarnessModel[], real: RunContext): Promise<void> {
  real.transcript.step(
    models.length === 1
      ? "read the balance: the start minus every order not refunded"
      : `read the balance: the start minus every order not refunded, of all ${models.length} runs that shared the account`,
  );
  await real.timings.time("audit: balance", async () => {
    let cents = await readBalanceCents(real);
    if (cents === undefined) return;
    const laterRefunds: number[] = [];
    // A move can land between a look-up and the read: a few rounds settle it (each order moves once).
    for (let round = 0; round < BALANCE_REREADS && !balanceHolds(models, cents, laterRefunds); round++) {
      real.transcript.step(
        "the balance disagrees: look up again every order counted as kept (a legal later move refunds it), then read the balance again",
      );
      await Promise.all(
        models.flatMap((model) =>
          committedOrders(model)
            .filter((o) => !isRefunded(model, o))
            .map((order) => lookupOrder(model, real, order)),
        ),
      );
      laterRefunds.push(...(await refundedSinceStart(real)));
      cents = await readBalanceCents(real);
      if (cents === undefined) return;
    }
    judgeBalanceNow(models, real, cents, laterRefunds);
    for (const model of models) await judgeShortcodeWallet(model, real);
  });
}

/** The orders the default wallet funds: the public balance is that wallet's (the shortcode wallet is judged apart). */
function defaultWalletOrders(model: HarnessModel): ModelOrder[] {
  return fundedBy(committedOrders(model), null);
}

/** The default wallet's orders whose fate is still unknown. */
function defaultWalletUnknown(model: HarnessModel): ModelOrder[] {
  return fundedBy(unknownOrders(model), null);
}

/** Earlier runs' orders kept at this run's start and refunded since (a reversal after they settled), in cents. */
async function refundedSinceStart(real: RunContext): Promise<number[]> {
  const cents: number[] = [];
  await Promise.all(
    real.earlierKept.map(async (entry) => {
      const result = await real.api.lookup(entry.reference, { token: real.token });
      if (result.kind !== "response") return;
      const status = real.provider.readOrder("lookup", result.response.json).status;
      if (status === undefined || !real.provider.statuses.refunds(status)) return;
      entry.refunded = true;
      cents.push(entry.amountCents);
    }),
  );
  return cents;
}

function ledgerStatus(model: HarnessModel, order: ModelOrder): string {
  if (order.unknown) return "unknown (debited or not)";
  if (order.evicted && (order.lastStatus === undefined || !isFinal(model, order.lastStatus))) {
    return "gone before final (refunded or not)";
  }
  return order.lastStatus === undefined ? "?" : statusName(model, order.lastStatus);
}

function isRefunded(model: HarnessModel, order: ModelOrder): boolean {
  return order.lastStatus !== undefined && refundsWallet(model.config.statusTable, order.lastStatus);
}

/**
 * The start minus every order not refunded (exact), or at least the start
 * minus every order (shared account); an order still unknown after the
 * audit resolved it counts in the least and may be in the exact or not.
 */
function expectedCents(models: readonly HarnessModel[]): { expected: number; least: number } {
  let expected = models[0]?.startBalanceCents ?? 0;
  let least = expected;
  for (const model of models) {
    const orders = defaultWalletOrders(model);
    expected -= orders.filter((o) => !isRefunded(model, o)).reduce((sum, o) => sum + o.amountCents, 0);
    least -= [...defaultWalletUnknown(model), ...orders].reduce((sum, o) => sum + o.amountCents, 0);
  }
  return { expected, least };
}

/**
 * Exact: the expected balance plus the refunds of some of the earlier orders
 * refunded since the start — each landed before or after the starting read —
 * minus the amounts of some of the orders still unknown.
 */
function balanceHolds(models: readonly HarnessModel[], cents: number, laterRefundsCents: readonly number[]): boolean {
  const { expected, least } = expectedCents(models);
  if (!models.every((model) => model.config.exactBalance)) return cents >= least;
  const uncertain = models.flatMap((model) => [
    ...defaultWalletUnknown(model).map((o) => -o.amountCents),
    ...maybeRefunded(model),
  ]);
  return subsetSums([...laterRefundsCents, ...uncertain]).has(cents - expected);
}

/**
 * Orders gone (evicted) before a final status was seen: counted as kept,
 * though each may have ended refunded — its refund may be in the balance or not.
 */
function maybeRefunded(model: HarnessModel): number[] {
  return defaultWalletOrders(model)
    .filter((o) => o.evicted && (o.lastStatus === undefined || !isFinal(model, o.lastStatus)))
    .map((o) => o.amountCents);
}

/** Every sum of a subset (0 included); a run has few such orders, and the set is capped. */
function subsetSums(amounts: readonly number[]): Set<number> {
  let sums = new Set([0]);
  for (const amount of amounts.slice(0, MAX_LATER_REFUNDS))
    sums = new Set([...sums, ...[...sums].map((s) => s + amount)]);
  return sums;
}

function judgeBalanceNow(
  models: readonly HarnessModel[],
  real: RunContext,
  cents: number,
  laterRefunds: readonly number[],
): void {
  const laterRefundsCents = laterRefunds.reduce((sum, amount) => sum + amount, 0);
  const { expected, least } = expectedCents(models);
  const start = formatKes(models[0]?.startBalanceCents ?? 0);
  const holds = balanceHolds(models, cents, laterRefunds);
  const later =
    laterRefundsCents === 0
      ? ""
      : ` (or up to KES ${formatKes(expected + laterRefundsCents)} with some of the KES ${formatKes(laterRefundsCents)} of earlier orders refunded since the start)`;
  const ledger = models.map((model, run) => ledgerText(model, models.length > 1 ? `run ${run + 1} ` : "")).join(", ");
  if (models.every((model) => model.config.exactBalance)) {
    real.checker.that(
      "no_double_charge",
      holds,
      () =>
        `after settling, the balance is KES ${formatKes(cents)}, expected exactly KES ${formatKes(expected)}${later}: start ${start} minus the orders not refunded (${ledger || "none"})`,
    );
  } else {
    real.checker.that(
      "no_double_charge",
      holds,
      () =>
        `the balance is KES ${formatKes(cents)}, below KES ${formatKes(least)} — the least it can be if each order was debited once (start ${start}, orders ${ledger || "none"})`,
    );
  }
  for (const model of models) {
    for (const order of committedOrders(model)) {
      if (order.lastStatus !== undefined && isFinal(model, order.lastStatus)) {
        real.checker.tally("no_double_charge", statusName(model, order.lastStatus));
      }
    }
  }
}

/** One run's orders as a balance failure lists them: slot, amount, status. */
function ledgerText(model: HarnessModel, label: string): string {
  return [...defaultWalletOrders(model), ...defaultWalletUnknown(model)]
    .map((o) => `${label}#${o.slot} ${formatKes(o.amountCents)} ${ledgerStatus(model, o)}`)
    .join(", ");
}
