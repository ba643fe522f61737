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
import { inferBodies } from "./infer-bodies.ts";
import { inferErrors } from "./infer-errors.ts";
import type { RawDelivery } from "./infer-signing.ts";
import { inferStatuses } from "./infer-statuses.ts";
import { inferWebhooks } from "./infer-webhooks.ts";
import type { FieldNote } from "./inference.ts";
import { type OrderEvent, withExtraFields } from "./infer-extra-fields.ts";
import { valueAt } from "./json-leaves.ts";
import type { Observations } from "./probe-target.ts";
import { startDeliveryRecorder } from "./delivery-recorder.ts";
import { createProbeClient } from "./probe-client.ts";
import { runProbe } from "./probe-run.ts";
import { probeSettings } from "./probe-settings.ts";

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
