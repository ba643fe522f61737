/**
 * Every answer the probe saw, per body, beside the pointers the inferred
 * profile names in it: what infer-extra-fields reads to find the fields the
 * profile would leave out. The lookups come first, so the order's creation
 * time they show can tell a webhook's creation time from its event time.
 */
import type { ProviderProfile } from "../contract/provider-profile/schema.ts";
import type { HttpResponse } from "../harness/http-client.ts";
import { type BodyKind, type BodySample, inferExtraFields, type OrderFacts } from "./infer-extra-fields.ts";
import type { FieldNote } from "./inference.ts";
import { valueAt } from "./json-leaves.ts";
import type { Observations, ProbedOrder } from "./probe-target.ts";

type Bodies = NonNullable<ProviderProfile["bodies"]>;

/** An order event the webhook inference matched to a probe order. */
export interface OrderEvent {
  readonly json: unknown;
  readonly order: ProbedOrder;
}

const ok = (answer: HttpResponse | undefined): answer is HttpResponse =>
  answer !== undefined && answer.status === 200 && answer.json !== undefined;

function factsOf(order: ProbedOrder, createdAt?: unknown): OrderFacts {
  const service = order.body.service;
  return {
    reference: order.reference,
    account: String(order.body.account),
    service: typeof service === "string" ? service : undefined,
    ...(createdAt === undefined ? {} : { createdAt }),
  };
}

function samplesOf(kind: BodyKind, observations: Observations): BodySample[] {
  const { orders } = observations;
  const answersOf = (pick: (order: ProbedOrder) => (HttpResponse | undefined)[]) =>
    orders.flatMap((order) =>
      pick(order)
        .filter(ok)
        .map((answer) => ({ json: answer.json, order: factsOf(order) })),
    );
  switch (kind) {
    case "order":
      return answersOf((order) => [order.placed, order.replay, order.lateReplay]);
    case "lookup":
      return answersOf((order) => [order.firstLookup, ...order.moves.map((move) => move.lookup), order.lateLookup]);
    case "balance":
      return [
        observations.balanceBefore,
        ...orders.flatMap((order) => [order.balanceAfterPlace, order.balanceAfterFinal]),
        observations.balanceAtEnd,
      ]
        .filter((json) => json !== undefined)
        .map((json) => ({ json }));
    case "error":
      return Object.values(observations.refusals)
        .filter((answer) => answer !== undefined && answer.status >= 400 && typeof answer.json === "object")
        .map((answer) => ({ json: (answer as HttpResponse).json }));
    case "webhook":
      return [];
  }
}

/** The pointers a body's section names: its fields, an error's code and message, a webhook's event and delivery id. */
function namedPointers(profile: ProviderProfile, kind: BodyKind): Set<string> {
  const section = (profile.bodies?.[kind] ?? {}) as Record<string, unknown>;
  const pointers = Object.values(section).filter((value): value is string => typeof value === "string");
  if (kind === "webhook") {
    if (profile.webhooks?.event !== undefined) pointers.push(profile.webhooks.event.pointer);
    const id = profile.webhooks?.deliveryId;
    if (id !== undefined && "pointer" in id) pointers.push(id.pointer);
  }
  return new Set(pointers);
}

/**
 * The profile's bodies with what each answer carries beyond its pointers:
 * kept members under `passthrough`, the rest under `extra`.
 */
export function withExtraFields(
  profile: ProviderProfile,
  observations: Observations,
  events: readonly OrderEvent[],
): { bodies: Bodies; notes: FieldNote[]; missing: string[] } {
  const bodies: Record<string, Record<string, unknown>> = { ...(profile.bodies as Record<string, never>) };
  const notes: FieldNote[] = [];
  const missing: string[] = [];
  const kinds: BodyKind[] = ["order", "lookup", "balance", "error", "webhook"];
  for (const kind of kinds.filter((name) => bodies[name] !== undefined)) {
    const createdAt = bodies.lookup?.passthrough as { createdAt?: string } | undefined;
    const samples =
      kind === "webhook"
        ? events.map((event) => {
            const created = createdAt?.createdAt;
            const final = created === undefined ? undefined : valueAt(event.order.finalLookup.json, created);
            return { json: event.json, order: factsOf(event.order, final) };
          })
        : samplesOf(kind, observations);
    const status = typeof bodies[kind]?.status === "string" ? (bodies[kind].status as string) : undefined;
    const found = inferExtraFields(kind, samples, namedPointers(profile, kind), status);
    bodies[kind] = { ...bodies[kind], ...found.value };
    notes.push(...found.notes);
    missing.push(...found.missing);
  }
  return { bodies: bodies as Bodies, notes, missing };
}
