/**
 * The webhook section, from the deliveries that came while the probe's
 * orders went final. A delivery holding a probe order's reference is an
 * order event; the rest are set aside and named. The event filter is the
 * field with one value on every order event (or, failing that, values the
 * other deliveries never carry); the delivery id is a header, or else a
 * body field, new on every delivery; the body's fields are found by value
 * like the lookup's; the signing scheme is the one that verifies.
 */
import type { ProviderProfile } from "../contract/provider-profile/schema.ts";
import type { OrderEvent } from "./infer-extra-fields.ts";
import { byName, createFindingLog, type Finding } from "./inference.ts";
import { displayHeader, inferSigning, type RawDelivery } from "./infer-signing.ts";
import { leavesOf, pointersOfAmount, pointersOfText, valueAt } from "./json-leaves.ts";
import type { ProbedOrder } from "./probe-target.ts";

type Webhooks = NonNullable<ProviderProfile["webhooks"]>;
type WebhookBody = NonNullable<NonNullable<ProviderProfile["bodies"]>["webhook"]>;

type StatusValues = (order: ProbedOrder) => readonly unknown[];

interface Parsed {
  readonly raw: RawDelivery;
  readonly json: unknown;
  readonly order: ProbedOrder | undefined;
}

const ID_LIKE = /^[A-Za-z0-9_.:-]{8,}$/;
/** Headers every HTTP request may carry: never a delivery id. */
const TRANSPORT = new Set(["content-length", "content-type", "host", "connection", "user-agent", "date", "accept"]);

/** A delivery names a probe order when it holds its reference and one of the statuses it went through. */
function parse(raw: RawDelivery, orders: readonly ProbedOrder[], statusesOf: StatusValues): Parsed {
  let json: unknown;
  try {
    json = JSON.parse(raw.body);
  } catch {
    json = undefined;
  }
  const values = new Set(leavesOf(json).map((leaf) => leaf.value));
  const order = orders.find(
    (probed) =>
      pointersOfText(json, probed.reference).length > 0 &&
      statusesOf(probed).some((status) => values.has(status as never)),
  );
  return { raw, json, order };
}

/** The field that marks an order event: one value on all of them, or values the others never have. */
function eventFilter(events: readonly Parsed[], others: readonly Parsed[], taken: ReadonlySet<string>) {
  const first = events[0];
  if (first === undefined) return undefined;
  const strings = leavesOf(first.json)
    .filter((leaf) => typeof leaf.value === "string" && !taken.has(leaf.pointer))
    .map((leaf) => leaf.pointer)
    .sort((a, b) => a.split("/").length - b.split("/").length);
  const candidates = byName(strings, /event|type|kind|topic/i).map((pointer) => {
    const values = new Set(events.map((event) => valueAt(event.json, pointer)));
    const otherValues = new Set(others.map((other) => valueAt(other.json, pointer)));
    const apart = [...values].every((value) => typeof value === "string" && !otherValues.has(value));
    return { pointer, values: [...values] as string[], apart };
  });
  // One value on every order event; failing that, a few values that repeat (an event name per outcome).
  const found =
    candidates.find((candidate) => candidate.apart && candidate.values.length === 1) ??
    candidates.find((candidate) => candidate.apart && others.length > 0 && candidate.values.length < events.length);
  return found === undefined ? undefined : { pointer: found.pointer, values: found.values };
}

/** A header, or else a body field, whose value is new on every delivery. */
function deliveryId(all: readonly Parsed[], exclude: ReadonlySet<string>, taken: ReadonlySet<string>) {
  const unique = (values: unknown[]) =>
    values.every((value) => typeof value === "string" && ID_LIKE.test(value) && !/^\d+$/.test(value)) &&
    new Set(values).size === values.length;
  const names = Object.keys(all[0]?.raw.headers ?? {}).filter((name) => !TRANSPORT.has(name) && !exclude.has(name));
  const header = byName(
    names.filter((name) => unique(all.map((parsed) => parsed.raw.headers[name]))),
    /id/i,
  )[0];
  if (header !== undefined) return { header: displayHeader(header) };
  const pointers = leavesOf(all[0]?.json)
    .map((leaf) => leaf.pointer)
    .filter((pointer) => !taken.has(pointer) && unique(all.map((parsed) => valueAt(parsed.json, pointer))));
  const pointer = byName(pointers, /id/i)[0];
  return pointer === undefined ? undefined : { pointer };
}

function webhookBody(event: Parsed, orderId: unknown, statusValues: readonly unknown[]): WebhookBody {
  const order = event.order as ProbedOrder;
  const body: WebhookBody = {};
  const reference = pointersOfText(event.json, order.reference)[0];
  if (reference !== undefined) body.reference = reference;
  const id = typeof orderId === "string" ? pointersOfText(event.json, orderId)[0] : undefined;
  if (id !== undefined) body.id = id;
  const status = byName(
    leavesOf(event.json)
      .filter((leaf) => statusValues.includes(leaf.value))
      .map((leaf) => leaf.pointer),
    /status|state|phase|stage|progress/i,
  )[0];
  if (status !== undefined) body.status = status;
  const amount = pointersOfAmount(event.json, order.amount)[0]?.pointer;
  if (amount !== undefined) body.amount = amount;
  return body;
}

export interface WebhookFinding {
  readonly webhooks: Webhooks;
  readonly body: WebhookBody;
  /** The deliveries that were not order events, named by their event value or their fields. */
  readonly setAside: readonly string[];
  /** The order events, each with the probe order it names. */
  readonly events: readonly OrderEvent[];
}

export function inferWebhooks(
  deliveries: readonly RawDelivery[],
  orders: readonly ProbedOrder[],
  secret: string,
  read: {
    readonly orderId: (order: ProbedOrder) => unknown;
    readonly statusValues: (order: ProbedOrder) => readonly unknown[];
  },
): Finding<WebhookFinding | undefined> {
  const log = createFindingLog();
  const parsed = deliveries.map((raw) => parse(raw, orders, read.statusValues));
  const events = parsed.filter((delivery) => delivery.order !== undefined);
  const others = parsed.filter((delivery) => delivery.order === undefined);
  const first = events.find((event) => valueAt(event.json, "") !== undefined);
  if (first === undefined) {
    log.miss(`webhooks: none of ${deliveries.length} deliveries named a probe order`);
    return log.finding(undefined);
  }
  const finalOfFirst = first;
  const order = finalOfFirst.order as ProbedOrder;
  const body = webhookBody(finalOfFirst, read.orderId(order), read.statusValues(order));
  for (const field of Object.keys(body)) {
    log.note(["bodies", "webhook", field], `found by value in the probe order's webhook`);
  }
  const webhooks: Webhooks = {};
  const taken = new Set(Object.values(body) as string[]);
  const filter = eventFilter(events, others, taken);
  if (filter !== undefined) {
    webhooks.event = filter;
    log.note(
      ["webhooks", "event"],
      `the same on all ${events.length} order events; never on the ${others.length} others`,
    );
  } else log.miss("the webhook event filter: no field marks the order events");
  const { signing, tried } = inferSigning(
    parsed.map((delivery) => delivery.raw),
    secret,
  );
  const signatureHeaders = new Set<string>();
  if (signing !== undefined) {
    webhooks.signing = signing;
    if (signing.scheme === "hmac") {
      signatureHeaders.add(signing.header.toLowerCase());
      if (signing.timestampHeader !== undefined) signatureHeaders.add(signing.timestampHeader.toLowerCase());
    } else ["webhook-signature", "webhook-timestamp"].forEach((name) => signatureHeaders.add(name));
    log.note(["webhooks", "signing"], `the one of ${tried} known schemes that verified every delivery with the secret`);
  } else log.miss(`the webhook signing: none of ${tried} known schemes verified with the given secret`);
  if (filter !== undefined) taken.add(filter.pointer);
  const id = deliveryId(parsed, signatureHeaders, taken);
  if (id !== undefined) {
    webhooks.deliveryId = id;
    log.note(["webhooks", "deliveryId"], `new on each of the ${parsed.length} deliveries (retries not seen)`);
  } else log.miss("the webhook delivery id: no header or field was new on every delivery");
  const nameOf = (other: Parsed) => {
    const named = filter === undefined ? undefined : valueAt(other.json, filter.pointer);
    return typeof named === "string" ? named : other.raw.body.slice(0, 60);
  };
  const setAside = others.map(nameOf);
  const orderEvents = events.map((event) => ({ json: event.json, order: event.order as ProbedOrder }));
  return log.finding({ webhooks, body, setAside, events: orderEvents });
}
