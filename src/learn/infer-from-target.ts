/**
 * `profile init --from-target`, as one call (`inferFromTarget`): probe the
 * target (printing every request), receive its webhooks when a listen
 * address and secret are given, and turn what it saw into a provider
 * profile, each field with how it was found, and the list of what could not
 * be found. Nothing is written here: the caller writes the one file. The
 * domain is never probed (that would take orders that could be placed): it
 * comes from the provider's OpenAPI document when one is given, and is
 * otherwise left out.
 */
import type { ProviderProfile } from "../contract/provider-profile/schema.ts";
import type { HttpResponse } from "../harness/http-client.ts";
import { balancePointer, inferBodies } from "./infer-bodies.ts";
import { inferErrors } from "./infer-errors.ts";
import type { RawDelivery } from "./infer-signing.ts";
import { inferStatuses } from "./infer-statuses.ts";
import { inferWebhooks } from "./infer-webhooks.ts";
import type { FieldNote } from "./inference.ts";
import { type OrderEvent, withExtraFields } from "./infer-extra-fields.ts";
import { moneyOf, valueAt } from "./json-leaves.ts";
import {
  createTargetProbe,
  newProbeReference,
  PROBE_LIMITS,
  type Observations,
  type ProbedOrder,
  type ProbeSettings,
  type RefusalKind,
} from "./probe-target.ts";
import { type DeliveryRecorder, startDeliveryRecorder } from "./delivery-recorder.ts";
import { createProbeClient, type ProbeClient } from "./probe-client.ts";
import { probeBudgetKes, probeSettings } from "./probe-settings.ts";

export interface InferredProfile {
  readonly profile: ProviderProfile;
  readonly notes: readonly FieldNote[];
  readonly missing: readonly string[];
  /** Deliveries that were not order events, by their event name. */
  readonly setAside: readonly string[];
}

function inferFromObservations(
  observations: Observations,
  deliveries: readonly RawDelivery[],
  webhookSecret: string | undefined,
): InferredProfile {
  const bodies = inferBodies(observations);
  const statuses = inferStatuses(observations, bodies.value.bodies);
  const errors = inferErrors(observations, bodies.value.bodies.order.id);
  const profile: ProviderProfile = {
    profile: 1,
    bodies: { ...bodies.value.bodies },
    money: bodies.value.money,
  };
  if (statuses.value !== undefined) profile.statuses = statuses.value;
  if (errors.value.errorBody !== undefined) profile.bodies = { ...profile.bodies, error: errors.value.errorBody };
  if (errors.value.http !== undefined) profile.http = errors.value.http;
  if (errors.value.errorCodes !== undefined) profile.errorCodes = errors.value.errorCodes;
  const notes = [...bodies.notes, ...statuses.notes, ...errors.notes];
  const missing = [...bodies.missing, ...statuses.missing, ...errors.missing];
  let setAside: readonly string[] = [];
  let events: readonly OrderEvent[] = [];
  if (webhookSecret === undefined) {
    missing.push("webhooks: not probed (give --listen HOST:PORT --webhook-secret SECRET)");
  } else {
    const lookupStatus = bodies.value.bodies.lookup.status;
    const orderId = bodies.value.bodies.order.id;
    const found = inferWebhooks(deliveries, observations.orders, webhookSecret, {
      orderId: (order) => (orderId === undefined ? undefined : valueAt(order.placed.json, orderId)),
      statusValues: (order) =>
        lookupStatus === undefined
          ? []
          : [order.firstLookup, ...order.moves.map((move) => move.lookup), order.lateLookup].map((answer) =>
              valueAt(answer?.json, lookupStatus),
            ),
    });
    notes.push(...found.notes);
    missing.push(...found.missing);
    if (found.value !== undefined) {
      profile.bodies = { ...profile.bodies, webhook: found.value.body };
      profile.webhooks = found.value.webhooks;
      setAside = found.value.setAside;
      events = found.value.events;
    }
  }
  const extra = withExtraFields(profile, observations, events);
  profile.bodies = extra.bodies;
  notes.push(...extra.notes);
  missing.push(...extra.missing);
  const smallest = observations.orders[0]?.amount;
  if (smallest !== undefined && observations.refusedAmounts.length > 0) {
    // Not the exact minimum (that would take more orders): a floor the target is known to take, so orders stay inside.
    profile.domain = { amount: { min: smallest } };
    notes.push({
      path: ["domain", "amount", "min"],
      how: `the smallest amount the target took (it refused ${observations.refusedAmounts.join(", ")})`,
    });
  }
  missing.push("domain: the rest is never probed with orders (give the provider's OpenAPI document)");
  return { profile, notes, missing, setAside };
}

export interface FromTargetOptions {
  readonly target: string;
  readonly token: string;
  readonly otherToken?: string;
  readonly account: string;
  readonly listen?: { readonly host: string; readonly port: number };
  readonly webhookSecret?: string;
  /** KES; default three orders of the smallest amount the target takes. */
  readonly budget?: number;
  readonly timeoutMs: number;
}

export type FromTargetResult =
  | { readonly ok: true; readonly inferred: InferredProfile; readonly spent: number; readonly budget: number }
  | { readonly ok: false; readonly reason: string; readonly spent: number };

/**
 * @example
 * const result = await inferFromTarget({ target, token, account: "0712000101", timeoutMs: 10_000 }, console.log);
 */
export async function inferFromTarget(
  options: FromTargetOptions,
  print: (line: string) => void,
): Promise<FromTargetResult> {
  const client = createProbeClient(options.target, print);
  const recorder =
    options.listen === undefined || options.webhookSecret === undefined
      ? undefined
      : await startDeliveryRecorder(options.listen);
  if (recorder !== undefined) print(`receiving webhooks at ${recorder.url}`);
  try {
    const result = await runProbe(client, probeSettings(options), recorder);
    if (!result.ok) return { ok: false, reason: result.reason, spent: client.spent() };
    const inferred = inferFromObservations(result.observations, result.deliveries, options.webhookSecret);
    return { ok: true, inferred, spent: client.spent(), budget: client.budget() ?? 0 };
  } finally {
    await recorder?.close();
  }
}

/**
 * One probe of a target, start to end: the balance, the first order at the
 * smallest amount the target takes (which sets the default budget: three
 * such orders), an order missing a field, more orders while the budget
 * lasts, each followed to its final status, the refusals that cost nothing,
 * a last look at every order (a reversal shows there), and the webhooks
 * that came meanwhile.
 */

type ProbeResult =
  | { readonly ok: true; readonly observations: Observations; readonly deliveries: readonly RawDelivery[] }
  | { readonly ok: false; readonly reason: string };

const asResponse = (outcome: Awaited<ReturnType<ProbeClient["send"]>>): HttpResponse | undefined =>
  outcome.kind === "response" ? outcome : undefined;

async function runProbe(
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
