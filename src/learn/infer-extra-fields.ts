/**
 * The fields a target's answers carry that the profile's pointers do not
 * name. A body the profile states holds only what it states, so a twin
 * built from the profile would leave them out, and a client that reads them
 * would break against it. Each such field is recorded, by its values in
 * every answer of its body: as one of our members kept under `passthrough`
 * when its value is that member's (the account the order was placed for,
 * its service, the currency, the order's creation or last change time, a
 * text that follows the status), else as an `extra` template that writes
 * it (a value that never changes, a fresh UUID, the order's creation time).
 * A field neither can write is listed as not inferred, with its values.
 */
import { PASSTHROUGH_FIELDS, type ProviderProfile } from "../contract/provider-profile/schema.ts";
import { createFindingLog, type Finding, type FieldNote } from "./inference.ts";
import { leavesOf, type Leaf, valueAt } from "./json-leaves.ts";
import type { HttpResponse } from "../harness/http-client.ts";
import type { Observations, ProbedOrder } from "./probe-target.ts";

export type BodyKind = "order" | "lookup" | "balance" | "error" | "webhook";

type ExtraTemplate = NonNullable<NonNullable<NonNullable<ProviderProfile["bodies"]>["order"]>["extra"]>[string];

/** What is known of the order an answer is about: what the probe sent, and its creation time once found. */
export interface OrderFacts {
  readonly reference: string;
  readonly account: string;
  readonly service: string | undefined;
  readonly createdAt?: unknown;
}

/** One answer of a body, with the order it is about (the balance and errors are about none). */
export interface BodySample {
  readonly json: unknown;
  readonly order?: OrderFacts;
}

export interface ExtraFields {
  readonly passthrough?: Record<string, string>;
  readonly extra?: Record<string, ExtraTemplate>;
}

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** An account as its national number: the last nine digits (0712…, 254712… and +254712… are one number). */
const nationalNumber = (value: unknown) => (typeof value === "string" ? value.replace(/\D/g, "").slice(-9) : "");

interface Field {
  readonly pointer: string;
  /** The field's value in each sample, with the sample's order and status. */
  readonly seen: readonly { readonly value: Leaf["value"]; readonly order?: OrderFacts; readonly status: unknown }[];
}

const every = (field: Field, test: (seen: Field["seen"][number]) => boolean) => field.seen.every(test);
const isTime = (field: Field) => every(field, ({ value }) => typeof value === "string" && TIME.test(value));

/** A time field's value held still for each order across its answers: the order's creation, not its last change. */
function heldPerOrder(field: Field): boolean {
  const first = new Map<string, unknown>();
  return every(field, ({ value, order }) => {
    if (order === undefined) return false;
    if (!first.has(order.reference)) first.set(order.reference, value);
    return first.get(order.reference) === value;
  });
}

/** A text that is the same for every answer with the same status, and not the same for all: the status's message. */
function followsStatus(field: Field): boolean {
  const byStatus = new Map<unknown, unknown>();
  const consistent = every(field, ({ value, status }) => {
    if (typeof value !== "string" || status === undefined || TIME.test(value)) return false;
    if (!byStatus.has(status)) byStatus.set(status, value);
    return byStatus.get(status) === value;
  });
  return consistent && new Set(field.seen.map(({ value }) => value)).size > 1;
}

/** Our member whose value the field holds in every answer, if the body may keep it. */
function memberOf(kind: BodyKind, field: Field): { member: string; how: string } | undefined {
  const time = isTime(field);
  const candidates: [string, boolean, string][] = [
    [
      "account",
      every(
        field,
        ({ value, order }) => order !== undefined && nationalNumber(value) === nationalNumber(order.account),
      ),
      "the account each order was placed for",
    ],
    [
      "service",
      every(field, ({ value, order }) => order?.service !== undefined && value === order.service),
      "the service each order was placed for",
    ],
    ["currency", every(field, ({ value }) => value === "KES"), 'always "KES"'],
    ["createdAt", time && heldPerOrder(field), "a time that held still for each order"],
    ["updatedAt", time && !heldPerOrder(field), "a time that moved with each order's status"],
    ["timestamp", time && !every(field, ({ value, order }) => value === order?.createdAt), "the time of each event"],
    ["message", followsStatus(field), "a text that follows the status"],
  ];
  const allowed = (PASSTHROUGH_FIELDS as Readonly<Record<string, readonly string[]>>)[kind] ?? [];
  const found = candidates.find(([member, holds]) => holds && allowed.includes(member));
  return found === undefined ? undefined : { member: found[0], how: found[2] };
}

/** The template that writes the field, where one does. */
function templateOf(kind: BodyKind, field: Field): { template: ExtraTemplate; how: string } | undefined {
  const values = field.seen.map(({ value }) => value);
  const first = values[0] as Leaf["value"];
  if (values.every((value) => value === first)) {
    return { template: { constant: first }, how: `${JSON.stringify(first)} in all ${values.length} answers` };
  }
  if (
    values.every((value) => typeof value === "string" && UUID.test(value)) &&
    new Set(values).size === values.length
  ) {
    return { template: { uuid: true }, how: "a new UUID in each answer" };
  }
  const created = every(field, ({ value, order }) => order?.createdAt !== undefined && value === order.createdAt);
  if ((kind === "order" || kind === "webhook") && isTime(field) && (created || heldPerOrder(field))) {
    return { template: { orderCreatedAt: true }, how: "the order's creation time" };
  }
  return undefined;
}

/** The leaves the samples carry that no pointer of the body names, each with its values; those missing somewhere too. */
function unnamedFields(samples: readonly BodySample[], named: ReadonlySet<string>, statusPointer: string | undefined) {
  const pointers = new Set(samples.flatMap((sample) => leavesOf(sample.json).map((leaf) => leaf.pointer)));
  const fields: Field[] = [];
  const sometimes: string[] = [];
  for (const pointer of [...pointers].filter((candidate) => !named.has(candidate))) {
    const seen = samples.map((sample) => ({
      value: valueAt(sample.json, pointer) as Leaf["value"] | undefined,
      ...(sample.order === undefined ? {} : { order: sample.order }),
      status: statusPointer === undefined ? undefined : valueAt(sample.json, statusPointer),
    }));
    if (seen.some(({ value }) => value === undefined)) sometimes.push(pointer);
    else fields.push({ pointer, seen: seen as Field["seen"] });
  }
  return { fields, sometimes };
}

/**
 * @example
 * inferExtraFields("balance", [{ json: { funds: 90, currency: "KES" } }], new Set(["/funds"]), undefined);
 * // value: { passthrough: { currency: "/currency" } }
 */
function inferExtraFields(
  kind: BodyKind,
  samples: readonly BodySample[],
  named: ReadonlySet<string>,
  statusPointer: string | undefined,
): Finding<ExtraFields> {
  const log = createFindingLog();
  const passthrough: Record<string, string> = {};
  const extra: Record<string, ExtraTemplate> = {};
  const { fields, sometimes } = unnamedFields(samples, named, statusPointer);
  for (const field of fields) {
    const member = memberOf(kind, field);
    if (member !== undefined && passthrough[member.member] === undefined) {
      passthrough[member.member] = field.pointer;
      log.note(["bodies", kind, "passthrough", member.member], `${field.pointer}: ${member.how}`);
      continue;
    }
    const template = templateOf(kind, field);
    if (template !== undefined) {
      extra[field.pointer] = template.template;
      log.note(["bodies", kind, "extra", field.pointer], template.how);
      continue;
    }
    const values = [...new Set(field.seen.map(({ value }) => JSON.stringify(value)))].slice(0, 4).join(", ");
    log.miss(`bodies.${kind}: ${field.pointer} (${values}) follows no member of ours or template; not written`);
  }
  for (const pointer of sometimes) log.miss(`bodies.${kind}: ${pointer} is in some answers only; not written`);
  return log.finding({
    ...(Object.keys(passthrough).length === 0 ? {} : { passthrough }),
    ...(Object.keys(extra).length === 0 ? {} : { extra }),
  });
}

// The samples: every answer the probe saw, per body, beside the pointers
// the inferred profile names in it. The lookups come first, so the order's
// creation time they show can tell a webhook's creation time from its event
// time.

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
