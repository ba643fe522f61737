/**
 * One probe of a target, start to end: the balance, the first order at the
 * smallest amount the target takes (which sets the default budget: three
 * such orders), an order missing a field, more orders while the budget
 * lasts, each followed to its final status, the refusals that cost nothing,
 * a last look at every order (a reversal shows there), and the webhooks
 * that came meanwhile.
 */
import type { HttpResponse } from "../harness/http-client.ts";
import { balancePointer } from "./infer-bodies.ts";
import type { RawDelivery } from "./infer-signing.ts";
import { moneyOf, valueAt } from "./json-leaves.ts";
import type { ProbeClient } from "./probe-client.ts";
import {
  createTargetProbe,
  newProbeReference,
  PROBE_LIMITS,
  type Observations,
  type ProbedOrder,
  type ProbeSettings,
  type RefusalKind,
} from "./probe-target.ts";
import type { DeliveryRecorder } from "./delivery-recorder.ts";
import { probeBudgetKes } from "./probe-settings.ts";

export type ProbeResult =
  | { readonly ok: true; readonly observations: Observations; readonly deliveries: readonly RawDelivery[] }
  | { readonly ok: false; readonly reason: string };

const asResponse = (outcome: Awaited<ReturnType<ProbeClient["send"]>>): HttpResponse | undefined =>
  outcome.kind === "response" ? outcome : undefined;

export async function runProbe(
  client: ProbeClient,
  settings: ProbeSettings,
  recorder: DeliveryRecorder | undefined,
): Promise<ProbeResult> {
  const probe = createTargetProbe(client, settings);
  const balanceBefore = await probe.balance();
  const refusedAmounts: number[] = [];
  const first = await probe.firstOrder(refusedAmounts);
  if (first === undefined) {
    return { ok: false, reason: `no order was taken (amounts refused: ${refusedAmounts.join(", ") || "none"})` };
  }
  const amount = first.order.amount;
  client.setBudget(probeBudgetKes(settings, amount));
  const refusals: Partial<Record<RefusalKind, HttpResponse | undefined>> = {};
  const orders: ProbedOrder[] = [];
  const followed = await probe.follow(first.order, first.placed);
  if (followed !== undefined) orders.push(followed);
  // Sent while the budget still has room for it: a target that takes it anyway has spent no more than given.
  const incomplete = probe.draft(amount);
  const { currency: _left, ...withoutCurrency } = incomplete.body;
  const invalid = await probe.post(incomplete, withoutCurrency);
  if (invalid?.kind === "response") refusals.invalidInput = invalid;
  while (orders.length < PROBE_LIMITS.MAX_ORDERS) {
    const next = probe.draft(amount);
    const placed = await probe.post(next);
    if (placed === undefined || placed.kind !== "response" || placed.status !== 200) break;
    const order = await probe.follow(next, placed);
    if (order !== undefined) orders.push(order);
  }
  const mismatch = await client.send({
    method: "POST",
    path: "/v1/airtime",
    token: settings.token,
    body: { ...first.order.body, amount: amount + 1 },
    idempotencyKey: first.order.key,
  });
  refusals.mismatch = asResponse(mismatch);
  await lookAgain(probe, orders);
  const balanceAtEnd = await probe.balance();
  const observations = { balanceBefore, orders, balanceAtEnd, refusals, refusedAmounts };
  await freeRefusals(client, settings, observations);
  const deliveries = recorder === undefined ? [] : await awaitWebhooks(recorder, orders, settings.timeoutMs);
  return { ok: true, observations, deliveries };
}

/** Each order once more, and its replay: a move after the final one (a reversal) shows here. */
async function lookAgain(probe: ReturnType<typeof createTargetProbe>, orders: ProbedOrder[]): Promise<void> {
  for (const order of orders) {
    const late = await probe.lookup(order.reference);
    if (late !== undefined) order.lateLookup = late;
    const replay = await probe.post({ ...order, amount: 0 });
    if (replay?.kind === "response") order.lateReplay = replay;
  }
}

/** The refusals that cannot cost anything: no token, an unknown reference, a wrong method, an order the other customer cannot pay. */
async function freeRefusals(client: ProbeClient, settings: ProbeSettings, observations: Observations): Promise<void> {
  const refusals = observations.refusals as Partial<Record<RefusalKind, HttpResponse | undefined>>;
  const token = settings.token;
  refusals.unauthorized = asResponse(await client.send({ method: "GET", path: "/v1/balance", token: undefined }));
  const unknown = `/v1/airtime/${newProbeReference()}`;
  refusals.notFound = asResponse(await client.send({ method: "GET", path: unknown, token }));
  refusals.wrongMethod = asResponse(await client.send({ method: "DELETE", path: "/v1/airtime", token }));
  const pointer = balancePointer(observations);
  const first = observations.orders[0];
  if (settings.otherToken === undefined || pointer === undefined || first === undefined) return;
  const other = asResponse(await client.send({ method: "GET", path: "/v1/balance", token: settings.otherToken }));
  const otherBalance = moneyOf(valueAt(other?.json, pointer));
  if (otherBalance === undefined) return;
  // One shilling beyond what the other customer holds: the target cannot place it (§7).
  const beyond = Math.floor(otherBalance) + 1;
  const body = { ...first.body, amount: beyond, reference: newProbeReference() };
  const key = `probe-beyond-${body.reference}`;
  const answer = await client.send({
    method: "POST",
    path: "/v1/airtime",
    token: settings.otherToken,
    body,
    idempotencyKey: key,
  });
  refusals.insufficient = asResponse(answer);
}

/** Waits until every order's final status has arrived as a delivery naming its reference, then a moment for stragglers. */
async function awaitWebhooks(
  recorder: DeliveryRecorder,
  orders: readonly ProbedOrder[],
  timeoutMs: number,
): Promise<readonly RawDelivery[]> {
  await recorder.waitFor(
    (deliveries) => orders.every((order) => deliveries.some((delivery) => delivery.body.includes(order.reference))),
    timeoutMs,
  );
  await new Promise((resolve) => setTimeout(resolve, 300));
  return [...recorder.deliveries()];
}
