/**
 * Promises judged over time. After every model run, each order the run
 * placed is looked up once more, seconds after it went final, and each key
 * is replayed once with its payload: a final status that moved other than by
 * a legal move of the profile's table fails `status_monotonic`, a replay
 * that no longer gives the same id and the latest status fails
 * `idempotent_replay`, and a webhook whose status contradicts the lookup
 * fails `webhook_matches_lookup`. The same judgement serves `--recheck`,
 * a day later, on the orders of a saved run.
 */
import type { PublicApi } from "../api.ts";
import { type Checker, isCheckFailure } from "../checker.ts";
import type { CheckName } from "../checks.ts";
import type { HarnessContext } from "../harness-context.ts";
import type { Transcript } from "../transcript.ts";
import type { PromisedOrder } from "./promised-orders.ts";
import { sleep } from "./settle.ts";

/** Orders judged at a time: the target's rate limit is kept by the paced client underneath. */
const BATCH = 16;

export interface LateAuditInput {
  readonly harness: HarnessContext;
  readonly api: PublicApi;
  readonly checker: Checker;
  readonly transcript: Transcript;
  readonly orders: readonly PromisedOrder[];
}

/** What the late audit found wrong: at most one failure per check, each with its message. */
export type LateFailures = Map<CheckName, Error>;

/**
 * Waits (or, on a virtual clock, advances the clock) until the newest order
 * is `afterMs` past the moment the run last saw it final.
 */
export async function waitPastFinal(harness: HarnessContext, orders: readonly PromisedOrder[], afterMs: number) {
  const admin = harness.target.admin;
  if (harness.target.clockMode === "virtual" && admin !== undefined) {
    await admin.advance(afterMs);
    return;
  }
  const newest = Math.max(...orders.map((order) => order.seenAt));
  await sleep(Math.max(0, newest + afterMs - Date.now()));
}

/** Judges every order's lookup, replay and webhooks; never throws for a contract violation. */
export async function judgePromises(input: LateAuditInput): Promise<LateFailures> {
  const failures: LateFailures = new Map();
  const { transcript, orders } = input;
  transcript.step(`late audit: look up all ${orders.length} order(s) again; a final status stays final`);
  const now = new Map<PromisedOrder, number>();
  await phase(failures, () =>
    inBatches(orders, async (order) => {
      const status = await lookUpAgain(input, order);
      if (status !== undefined) now.set(order, status);
    }),
  );
  transcript.step("late audit: replay every key with its payload: the same id and the latest status");
  await phase(failures, () => inBatches(orders, (order) => replayKey(input, order, now.get(order))));
  if (input.harness.receiver !== undefined) {
    transcript.step("late audit: every order's latest webhook agrees with its lookup");
    await phase(failures, async () => {
      for (const order of orders) judgeLatestWebhook(input, order, now.get(order));
    });
  }
  return failures;
}

async function phase(failures: LateFailures, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (!isCheckFailure(error)) throw error;
    if (!failures.has(error.check)) failures.set(error.check, error);
  }
}

/** Runs `each` over the orders a batch at a time; the first failure ends it. */
async function inBatches(orders: readonly PromisedOrder[], each: (order: PromisedOrder) => Promise<void>) {
  for (let start = 0; start < orders.length; start += BATCH) {
    await Promise.all(orders.slice(start, start + BATCH).map(each));
  }
}

/** The order's status now; a final status that moved other than by a legal move fails status_monotonic. */
async function lookUpAgain(input: LateAuditInput, order: PromisedOrder): Promise<number | undefined> {
  const { harness, checker } = input;
  const result = await input.api.lookup(order.reference, { token: order.token });
  if (result.kind !== "response" || result.response.status < 200 || result.response.status >= 300) return undefined;
  const status = harness.provider.readOrder("lookup", result.response.json).status;
  if (status === undefined || order.status === undefined || !order.final) return status;
  const { statuses } = harness.provider;
  checker.that(
    "status_monotonic",
    statuses.isAllowedMove(order.status, status),
    () =>
      `${order.reference}: final ${statuses.nameOf(order.status as number)} (${order.status}) when the run ended, but ${statuses.nameOf(status)} (${status}) at the late audit — not a legal move of the status table`,
  );
  checker.tally("status_monotonic", statuses.nameOf(order.status));
  return status;
}

/** The key, replayed with its payload: the same id, and the status the lookup shows now (or a legal move on). */
async function replayKey(input: LateAuditInput, order: PromisedOrder, latest: number | undefined): Promise<void> {
  const { harness, checker } = input;
  // A keyless order has nothing to replay: sent again, it would be a new order.
  if (order.keyIn === "none") return;
  // A target that forgot the key places the order again: the budget must cover that.
  if (!harness.budget.reserve(order.amountCents)) return;
  const result = await input.api.sendAirtime({
    token: order.token,
    body: order.payload,
    key: order.key,
    keyIn: order.keyIn,
  });
  if (result.kind !== "response") return;
  const { response } = result;
  const answered = harness.provider.readOrder("order", response.json);
  const ok = harness.profile === "strict" ? response.status === 200 : response.status >= 200 && response.status < 300;
  const sameId = order.id === undefined || answered.id === order.id;
  const { statuses } = harness.provider;
  const current =
    latest === undefined ||
    answered.status === undefined ||
    answered.status === latest ||
    statuses.isAllowedMove(latest, answered.status);
  checker.that(
    "idempotent_replay",
    ok && sameId && current,
    () =>
      `${order.reference}: key ${order.key} replayed with its payload after the run answered HTTP ${response.status} with id ${String(answered.id)} and status ${String(answered.status)}; expected id ${order.id} and the latest status ${latest === undefined ? "" : statuses.nameOf(latest)} (${String(latest)}) — a key forgotten early?`,
  );
}

/** The latest webhook for the order, against its lookup now: a legal move after it is no contradiction. */
function judgeLatestWebhook(input: LateAuditInput, order: PromisedOrder, latest: number | undefined): void {
  const receiver = input.harness.receiver;
  if (receiver === undefined || latest === undefined) return;
  const last = receiver
    .deliveriesFor(order.reference)
    .filter((delivery) => delivery.status !== undefined)
    .at(-1);
  if (last?.status === undefined) return;
  const { statuses } = input.harness.provider;
  const webhook = last.status;
  input.checker.that(
    "webhook_matches_lookup",
    webhook === latest || statuses.isAllowedMove(webhook, latest),
    () =>
      `${order.reference}: the latest webhook (${last.webhookId}) says ${statuses.nameOf(webhook)} (${webhook}), the lookup at the late audit ${statuses.nameOf(latest)} (${latest})`,
  );
}
