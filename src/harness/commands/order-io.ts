/**
 * What the order commands share: building an order's payload, sending it,
 * and judging the answer against the model. Kept in one place so "place"
 * and every kind of retry apply exactly the same rules.
 */
import { toCents } from "../../contract/money.ts";
import type { CompiledDomain, OrderFields } from "../../contract/provider-profile/compile.ts";
import type { TransactionStatusResponse } from "../../contract/public-schemas.ts";
import type { CallResult, KeyLocation } from "../api.ts";
import { HarnessError } from "../checker.ts";
import type { Fault } from "../faults.ts";
import {
  expectedBalance,
  expectedStatus,
  formatKes,
  type HarnessModel,
  isFinal,
  isMonotonic,
  type ModelOrder,
  type OrderPayload,
  pick,
  type ServiceMode,
  walletOf,
} from "../model.ts";
import type { HttpResponse } from "../http-client.ts";
import type { RunContext } from "../run-context.ts";
import { answerRefusalMismatch } from "../stated-refusal.ts";
import { type OrderShape, shapeKey, shapeReference } from "./order-inputs.ts";

export interface NewOrderSpec {
  readonly amountCents: number;
  readonly recipientIndex: number;
  readonly serviceMode: ServiceMode;
  readonly keyIn: KeyLocation;
  /** Funded by the customer's shortcode wallet, when the model knows one (else the default wallet). */
  readonly fromShortcode: boolean;
  /** How the reference and key end, and the optional fields (absent: plain). */
  readonly shape?: OrderShape;
}

/** The domain the provider profile states, when it states one (else our spec's whole input domain). */
export function domainOf(real: RunContext): CompiledDomain | undefined {
  return real.provider.given.domain ? real.provider.domain : undefined;
}

/** Adds a new order to the model (not yet sent): a fresh reference and a fresh key. */
export function newOrder(model: HarnessModel, real: RunContext, spec: NewOrderSpec): ModelOrder {
  const slot = model.orders.length;
  const recipient = pick(model.config.recipients, spec.recipientIndex);
  if (recipient === undefined) throw new HarnessError("no recipient accounts configured");
  const reference = shapeReference(`${real.prefix}-o${slot}`, spec.shape, domainOf(real));
  const payload: OrderPayload = {
    account: recipient.account,
    amount: spec.amountCents / 100,
    currency: "KES",
    reference,
    ...(spec.serviceMode === "explicit" ? { service: recipient.service } : {}),
    ...(spec.serviceMode === "network" ? { network: recipient.service } : {}),
    ...(spec.shape?.name === undefined ? {} : { name: spec.shape.name }),
    ...(spec.shape?.phone === undefined ? {} : { phone: spec.shape.phone }),
    ...(spec.fromShortcode && model.config.shortcode !== undefined ? { shortcode: model.config.shortcode } : {}),
  };
  const order: ModelOrder = {
    slot,
    reference,
    key: shapeKey(`${real.prefix}-k${slot}`, spec.shape),
    keyIn: spec.keyIn,
    payload,
    amountCents: spec.amountCents,
    recipient,
    id: undefined,
    committed: false,
    unknown: false,
    evicted: false,
    placedAtMs: undefined,
    lastStatus: undefined,
    forcedStatus: undefined,
  };
  model.orders.push(order);
  return order;
}

export function describeNewOrder(spec: NewOrderSpec, model: HarnessModel | undefined): string {
  const recipient = model === undefined ? undefined : pick(model.config.recipients, spec.recipientIndex);
  const service =
    spec.serviceMode === "detect"
      ? "service detected"
      : `service as ${spec.serviceMode === "network" ? "network" : "service"}`;
  const wallet =
    spec.fromShortcode && model?.config.shortcode !== undefined ? ` from wallet ${model.config.shortcode}` : "";
  return `KES ${formatKes(spec.amountCents)}${wallet} to ${recipient?.account ?? `account #${spec.recipientIndex}`}, ${service}, ${spec.keyIn === "none" ? "no key" : `key in ${spec.keyIn}`}`;
}

/**
 * Sends `payload` (the order's own by default) with the order's key.
 * Reserves the amount from the budget first, unless the command `reserved`
 * it already.
 */
export async function sendOrder(
  real: RunContext,
  model: HarnessModel,
  order: ModelOrder,
  {
    fault,
    payload = order.payload,
    reserved = false,
  }: { readonly fault?: Fault; readonly payload?: OrderPayload; readonly reserved?: boolean } = {},
): Promise<CallResult> {
  if (!reserved && !model.config.budget.reserve(toCents(payload.amount))) {
    throw new HarnessError("budget exhausted; a command's check() should have prevented this request");
  }
  return real.api.sendAirtime({
    token: real.token,
    body: { ...payload },
    key: order.key,
    keyIn: order.keyIn,
    ...(fault === undefined ? {} : { fault }),
  });
}

/** No answer to trust came for a request with the order's key: unless the order is known placed, it is unknown. */
function markUnknown(real: RunContext, order: ModelOrder, reason: string): void {
  if (order.committed) return;
  order.unknown = true;
  real.transcript.step(
    `no answer for ${order.reference} (${reason}): the order may or may not exist; the audit looks it up before judging`,
  );
}

/** How a request carrying the order's key and payload was sent, as its answer is judged. */
export interface SentAs {
  /** One of several identical requests in flight at once (see retry-commands.ts). */
  readonly concurrent?: boolean;
  /**
   * The latest status observed when the request was sent. An answer is
   * judged only against what was seen before its request left: a request
   * sent before a later status was observed may have been served before it,
   * and carry the earlier status. Absent: the request followed every
   * observation so far.
   */
  readonly whenSent?: { readonly lastStatus: number | undefined };
}

/**
 * Judges the answer to a request carrying the order's own key and payload
 * (a first attempt or a retry) and updates the model.
 */
export function absorbOrderResult(
  model: HarnessModel,
  real: RunContext,
  order: ModelOrder,
  result: CallResult,
  options: SentAs = {},
): void {
  const wasCommitted = order.committed;
  // An answer after an unanswered attempt may be the first or a replay: Idempotent-Replayed is free then.
  const firstUnknown = order.unknown;
  if (result.kind === "unanswered") {
    markUnknown(real, order, result.reason);
    return;
  }
  if (result.kind === "lost") {
    if (result.fault.kind !== "drop_response") return; // never forwarded: nothing happened
    const upstream = result.observed?.upstream;
    // The target answered nothing the proxy saw (it broke the connection itself), or a 5xx: unknown.
    if (upstream === undefined || upstream.status >= 500) {
      markUnknown(real, order, upstream === undefined ? "the target sent no answer" : `HTTP ${upstream.status}`);
      return;
    }
    const lost = real.provider.readOrder("order", parseJson(upstream.text));
    // A 200 without an id is a failed order (§7): nothing was placed.
    if (upstream.status === 200 && lost.id !== undefined) {
      acceptOrderAnswer(
        model,
        real,
        order,
        { id: lost.id, status: lost.status },
        "the response the client lost",
        options,
      );
      // The proxy kept the lost answer's headers too.
      if (!firstUnknown) judgeReplayedHeader(real, order, upstream.headers, wasCommitted, options);
    }
    return;
  }
  const { response } = result;
  const answer = real.provider.readOrder("order", response.json);
  if (!wasCommitted && !options.concurrent) tallyFirstAnswer(real, response, answer.id !== undefined);
  if (response.status === 200 && answer.id !== undefined) {
    acceptOrderAnswer(model, real, order, answer, "the response", options);
    if (!firstUnknown) judgeReplayedHeader(real, order, response.headers, wasCommitted, options);
    return;
  }
  // A failed order for the order's key and payload: nothing holds it (a replay of a placed order answers its id).
  if (response.status === 200 || response.status === 402) order.unknown = false;
  if (response.status === 200) {
    // §3 rule 2: a retry of an order the target holds answers its id; a 200 without one is a failed order (§7).
    real.checker.that(
      "idempotent_replay",
      !order.committed,
      () =>
        `${order.reference}: a retry of ${order.id} with the same key and payload was answered as a failed order, without an id: ${response.text.slice(0, 160)}`,
    );
    return; // a failed order (§7): the interface leaves its status free
  }
  if (response.status === 402) {
    const expectation = expectedBalance(model, walletOf(order));
    real.checker.that(
      "no_double_charge",
      expectation.minCents < order.amountCents,
      () =>
        `${order.reference}: 402 insufficient balance for KES ${formatKes(order.amountCents)}, but the balance must be at least KES ${formatKes(expectation.minCents)}`,
    );
    return;
  }
  if (order.committed) {
    real.checker.that(
      "idempotent_replay",
      false,
      `${order.reference}: a retry with the same key and payload was answered HTTP ${response.status} (${response.text.slice(0, 160)}), expected 200 with id ${order.id}`,
    );
    return;
  }
  real.checker.that(
    "status_code_conformance",
    false,
    `${order.reference}: a valid order was answered HTTP ${response.status} (${response.text.slice(0, 160)}), expected 200 (or 402)`,
  );
}

/**
 * `Idempotent-Replayed: true` on every answer to a retry of an order the
 * target holds, and never on a first answer. Parallel identical requests
 * race, so which of them is first is not known: they are judged together
 * (see retry-commands.ts).
 */
function judgeReplayedHeader(
  real: RunContext,
  order: ModelOrder,
  headers: Readonly<Record<string, string>>,
  wasCommitted: boolean,
  options: SentAs,
): void {
  const replayed = (headers["idempotent-replayed"] ?? "").trim().toLowerCase() === "true";
  // The header is our spec's, not the interface's.
  if (options.concurrent === true || real.profile !== "strict") return;
  if (wasCommitted) {
    real.checker.that(
      "idempotent_replay",
      replayed,
      () =>
        `${order.reference}: a replay of ${order.id} came without Idempotent-Replayed: true (got ${headers["idempotent-replayed"] ?? "no header"})`,
    );
  } else {
    real.checker.that(
      "idempotent_replay",
      !replayed,
      () => `${order.reference}: the first answer to a new order says Idempotent-Replayed: true`,
    );
  }
}

function acceptOrderAnswer(
  model: HarnessModel,
  real: RunContext,
  order: ModelOrder,
  { id, status }: { readonly id: string | undefined; readonly status: number | undefined },
  what: string,
  sent: SentAs,
): void {
  if (id === undefined || status === undefined) {
    throw new HarnessError(`${order.reference}: ${what} has no id/status although it passed the schema`);
  }
  if (!order.committed) {
    // §7: a failed order's answer has no id — a first answer that is already a failed-class final must not carry one.
    real.checker.that(
      "response_schema_conformance",
      // After an unanswered attempt this may be a replay, which carries the latest status (§3 rule 2).
      real.profile === "strict" || order.unknown || real.provider.statuses.classOf(status) !== "failed",
      () =>
        `${order.reference}: ${what} reports the failed status ${real.provider.statuses.nameOf(status)} (${status}) with id ${id}; a failed order's answer has no id (§7)`,
    );
    const firstAnswer = !order.unknown;
    order.committed = true;
    order.unknown = false;
    order.id = id;
    order.placedAtMs = model.elapsedMs;
    order.lastStatus = status;
    // Steps due at once (a zero delay) are taken before the order is answered: its first answer shows them.
    const expected = expectedStatus(model, order);
    real.checker.that(
      "lookup_consistent",
      !firstAnswer || expected === undefined || status === expected,
      () => `${order.reference}: ${what} says status ${status}, the lifecycle has it at ${expected} already`,
    );
    return;
  }
  // An order found by a lookup that shows no id takes the id its first replay answers.
  order.id ??= id;
  real.checker.that(
    "idempotent_replay",
    id === order.id,
    () =>
      `${order.reference}: a retry with the same key and payload answered id ${id}, the first answer was ${order.id}`,
  );
  // Judged against what was observed before the request left, not what other answers showed since.
  const last = sent.whenSent === undefined ? order.lastStatus : sent.whenSent.lastStatus;
  if (real.profile !== "strict") {
    // §3 rule 2: a replay carries the latest status; a final status seen already cannot be "not yet".
    real.checker.that(
      "idempotent_replay",
      last === undefined || !isFinal(model, last) || isFinal(model, status),
      () =>
        `${order.reference}: a replay answered status ${status} after the final status ${last} was observed; it must carry the latest status (§3 rule 2)`,
    );
  }
  assertObservedStatus(model, real, order, status, "replay", last);
  const expected = expectedStatus(model, order);
  real.checker.that(
    "idempotent_replay",
    expected === undefined || status === expected,
    () => `${order.reference}: a replay must carry the latest status ${expected}, it said ${status}`,
  );
}

/**
 * Status monotonicity for any observation, against the status observed
 * when its request was sent; then remembers the status, unless a later one
 * was observed meanwhile that this one cannot follow (the answer is older).
 */
function assertObservedStatus(
  model: HarnessModel,
  real: RunContext,
  order: ModelOrder,
  status: number,
  where: string,
  seenWhenSent: number | undefined,
): void {
  real.checker.that(
    "status_monotonic",
    isMonotonic(model, seenWhenSent, status),
    () => `${order.reference}: the ${where} reports status ${status} after status ${seenWhenSent} was observed`,
  );
  if (seenWhenSent === order.lastStatus || isMonotonic(model, order.lastStatus, status)) order.lastStatus = status;
}

/** A lookup that found the order: its body (our spec's shape under strict) and its status, read through the mapping. */
export interface FoundLookup {
  readonly body: TransactionStatusResponse;
  readonly status: number;
}

export type LookupOutcome =
  | ({ readonly kind: "found" } & FoundLookup)
  | { readonly kind: "not_found" }
  | { readonly kind: "gone" }
  | { readonly kind: "lost" };

/** HTTP 410 Gone: the order existed and was evicted (our spec's `order_evicted`). */
const GONE_STATUS = 410;

/** Looks an order up by reference and judges the answer against the model. */
export async function lookupOrder(
  model: HarnessModel,
  real: RunContext,
  order: ModelOrder,
  fault?: Fault,
): Promise<LookupOutcome> {
  const result = await real.api.lookup(order.reference, {
    token: real.token,
    ...(fault === undefined ? {} : { fault }),
  });
  if (result.kind !== "response") return { kind: "lost" };
  const { response } = result;
  const strict = real.profile === "strict";
  const ok = response.status >= 200 && response.status < 300;
  if (order.unknown) {
    const seen = seenUnknownOrder(model, real, order, response);
    if (seen !== "found") return { kind: seen };
  }
  if (!order.committed) {
    real.checker.that(
      "lookup_consistent",
      strict ? response.status === 404 : !ok,
      () =>
        `${order.reference}: never placed (the target never saw it), but the lookup answered HTTP ${response.status}`,
    );
    return { kind: "not_found" };
  }
  if (response.status === GONE_STATUS) {
    // Its body was judged by the conformance checks; there is nothing more to read, now or later.
    if (!order.evicted) real.transcript.step(`${order.reference} is gone (HTTP 410): it is not polled again`);
    order.evicted = true;
    return { kind: "gone" };
  }
  real.checker.that(
    "lookup_consistent",
    strict ? response.status === 200 : ok,
    () =>
      `${order.reference}: placed as ${order.id}, but the lookup answered HTTP ${response.status} ${response.text.slice(0, 160)}`,
  );
  const body = response.json as TransactionStatusResponse;
  const found = real.provider.readOrder("lookup", body);
  if (found.status === undefined) {
    real.checker.that(
      "lookup_consistent",
      false,
      () =>
        `${order.reference}: the lookup shows no status at ${real.provider.pointer("lookup", "status")}: ${response.text.slice(0, 160)}`,
    );
    return { kind: "lost" };
  }
  assertObservedStatus(model, real, order, found.status, "lookup", order.lastStatus);
  if (strict) judgeStatusMessages(model, real, order, body);
  const mismatches = strict ? strictLookupMismatches(order, body) : mappedLookupMismatches(order, found);
  real.checker.that(
    "lookup_consistent",
    mismatches.length === 0,
    () => `${order.reference}: the lookup disagrees with the order as placed: ${mismatches.join(", ")}`,
    () => ({
      expectedLabel: `order ${order.reference} as placed`,
      actualLabel: `GET /v1/airtime/${order.reference}`,
      ...lookupComparison(order, strict ? body : found, strict),
    }),
  );
  const expected = expectedStatus(model, order);
  real.checker.that(
    "lookup_consistent",
    expected === undefined || found.status === expected,
    () =>
      `${order.reference}: expected status ${expected} at +${model.elapsedMs}ms (placed at +${order.placedAtMs}ms), the lookup says ${found.status}`,
  );
  return { kind: "found", body, status: found.status };
}

/**
 * A lookup of an order whose request went unanswered: found (an answer
 * with its status), it is placed and judged from here on like any other; a
 * stated not-found leaves it for a replay to settle; anything else tells
 * nothing.
 */
function seenUnknownOrder(
  model: HarnessModel,
  real: RunContext,
  order: ModelOrder,
  response: HttpResponse,
): "found" | "not_found" | "lost" {
  const found = real.provider.readOrder("lookup", response.json);
  if (response.status >= 200 && response.status < 300 && found.status !== undefined) {
    real.transcript.step(`${order.reference} was placed after all: the lookup found it`);
    order.committed = true;
    order.unknown = false;
    order.id = found.id ?? order.id;
    order.placedAtMs = model.elapsedMs;
    return "found";
  }
  const notFound =
    real.profile === "strict"
      ? response.status === 404
      : answerRefusalMismatch(real.provider, "notFound", response, "lookup") === undefined;
  return notFound ? "not_found" : "lost";
}

/** Under our spec every status, the current one and each in the history, reads as our status table words it. */
function judgeStatusMessages(
  model: HarnessModel,
  real: RunContext,
  order: ModelOrder,
  body: TransactionStatusResponse,
) {
  const table = model.config.statusTable;
  const entries = [
    { status: body.status, message: body.message },
    ...(Array.isArray(body.history) ? body.history : []),
  ];
  const wrong = entries.filter((entry) => {
    const stated = table.get(entry.status)?.message;
    return stated !== undefined && entry.message !== stated;
  });
  real.checker.that(
    "lookup_consistent",
    wrong.length === 0,
    () =>
      `${order.reference}: ${wrong.map((entry) => `status ${entry.status} reads "${entry.message}", our status table says "${table.get(entry.status)?.message}"`).join("; ")}`,
  );
}

/** Our spec's lookup echoes the order as placed: id, reference, amount, account (E.164), service, currency. */
function strictLookupMismatches(order: ModelOrder, body: TransactionStatusResponse): string[] {
  return [
    body.id === order.id ? undefined : `id ${body.id} ≠ ${order.id}`,
    body.reference === order.reference ? undefined : `reference ${body.reference}`,
    toCents(body.amount) === order.amountCents ? undefined : `amount ${body.amount} ≠ ${formatKes(order.amountCents)}`,
    body.account === order.recipient.e164 ? undefined : `account ${body.account} ≠ ${order.recipient.e164}`,
    body.service === order.recipient.service ? undefined : `service ${body.service} ≠ ${order.recipient.service}`,
    body.currency === order.payload.currency ? undefined : `currency ${body.currency}`,
  ].filter((m): m is string => m !== undefined);
}

/** The fields a lookup is judged on, as placed and as looked up: a failure's diff. */
function lookupComparison(order: ModelOrder, lookup: object, strict: boolean): { expected: object; actual: object } {
  const expected = strict
    ? {
        id: order.id,
        reference: order.reference,
        amount: order.amountCents / 100,
        account: order.recipient.e164,
        service: order.recipient.service,
        currency: order.payload.currency,
      }
    : { id: order.id, reference: order.reference };
  const looked = lookup as Readonly<Record<string, unknown>>;
  return { expected, actual: Object.fromEntries(Object.keys(expected).map((name) => [name, looked[name]])) };
}

/** The interface shows no lookup fields (§2.4): the id and reference, where the mapping finds them, must match. */
function mappedLookupMismatches(order: ModelOrder, found: OrderFields): string[] {
  return [
    found.id === undefined || found.id === order.id ? undefined : `id ${found.id} ≠ ${order.id}`,
    found.reference === undefined || found.reference === order.reference ? undefined : `reference ${found.reference}`,
  ].filter((m): m is string => m !== undefined);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A first answer to a valid order: taken (an id) or refused, for the run's placement tally. */
function tallyFirstAnswer(real: RunContext, response: { status: number; json: unknown }, placed: boolean): void {
  if (placed && response.status === 200) real.placements.placed();
  else real.placements.refused(response.status, real.provider.readErrorCode(response.json));
}
