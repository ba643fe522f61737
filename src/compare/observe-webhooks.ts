/**
 * The webhook half of one side's observations: a real receiver that
 * verifies each request under the provider profile's signing scheme and
 * answers every valid one 2xx, then, once the side's orders are final, what
 * arrived for them — how many status changes each order was told per final
 * status, how often one delivery id came again and at what gaps, status
 * changes sent under more than one delivery id, the event names, and the
 * requests whose signature did not verify. Delivery ids, references and
 * times are only used to count; none is kept in the result.
 */
import type { CompiledProfile } from "../contract/provider-profile/compile.ts";
import { compilePointer } from "../contract/provider-profile/pointer.ts";
import { createWebhookInbox, type InboxDelivery, type WebhookInbox } from "../webhooks/inbox.ts";

export interface WebhookRecorder {
  /** Where the side's webhooks are expected (the target may post to a forwarding URL instead). */
  readonly url: string;
  readonly secret: string;
  readonly inbox: WebhookInbox;
  close(): Promise<void>;
}

/** An order the side placed and saw final, with the final's status code. */
export interface FinalOrder {
  readonly reference: string;
  readonly status: number;
}

export interface WebhookObservations {
  /** Final status name → "status changes told per order" → orders, e.g. `{ Timeout: { "0": 5 } }`. */
  readonly eventsPerOrder: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** Times one delivery id arrived → delivery ids, e.g. `{ "1": 40 }`. */
  readonly arrivalsPerDelivery: Readonly<Record<string, number>>;
  /** Gaps, ms, between consecutive arrivals of one delivery id. */
  readonly repeatGapsMs: readonly number[];
  /** Arrivals of a delivery id the receiver had already answered 2xx. */
  readonly repeatsAfter2xx: number;
  /** Distinct status changes (order and status) delivered. */
  readonly statusChanges: number;
  /** Of those, the ones delivered under more than one delivery id. */
  readonly duplicatedChanges: number;
  /** Event name (the profile's event field) → delivery ids that carried it. */
  readonly eventNames: Readonly<Record<string, number>>;
  /** Every request that reached the receiver, and those whose signature did not verify. */
  readonly requests: number;
  readonly invalidSignatures: number;
}

export interface CollectOptions {
  readonly profile: CompiledProfile;
  readonly orders: readonly FinalOrder[];
  /** Most time to wait for a final status's webhook, from when the side's orders are final. */
  readonly timeoutMs: number;
  /** Once every final was told: how long the receiver must stay quiet for the repeats to be over. */
  readonly quietMs: number;
}

/**
 * @example
 * const recorder = await startWebhookRecorder({ profile, host: "0.0.0.0", port: 8788, secret });
 */
export async function startWebhookRecorder(options: {
  readonly profile: CompiledProfile;
  readonly secret: string;
  readonly host?: string | undefined;
  readonly port?: number | undefined;
}): Promise<WebhookRecorder> {
  const { secret } = options;
  const inbox = createWebhookInbox({
    secret,
    provider: options.profile,
    ...(options.host === undefined ? {} : { host: options.host }),
    ...(options.port === undefined ? {} : { port: options.port }),
  });
  const url = await inbox.listen();
  return { url, secret, inbox, close: () => inbox.close() };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits until every final order was told its final (or the timeout), then until the repeats are over. */
async function waitForWebhooks(recorder: WebhookRecorder, options: CollectOptions): Promise<void> {
  const told = (deliveries: readonly InboxDelivery[]) => {
    const seen = new Set(deliveries.map((d) => `${d.order?.reference}\u0000${d.order?.status}`));
    return options.orders.every((order) => seen.has(`${order.reference}\u0000${order.status}`));
  };
  const started = Date.now();
  // A final never told is what this observes, so running out of time is an answer, not an error.
  await recorder.inbox.waitUntil(told, options.timeoutMs).catch(() => undefined);
  let before = -1;
  while (recorder.inbox.requests().length !== before && Date.now() - started < options.timeoutMs + options.quietMs) {
    before = recorder.inbox.requests().length;
    await sleep(options.quietMs);
  }
}

function increment(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

/** How often each delivery id arrived, the gaps between its arrivals and its repeats after a 2xx. */
function repeatsOf(recorder: WebhookRecorder, ours: ReadonlySet<string>) {
  const arrivals = new Map<string, number[]>();
  let repeatsAfter2xx = 0;
  for (const request of recorder.inbox.requests()) {
    if (!request.verified || request.webhookId === undefined || !ours.has(request.webhookId)) continue;
    const times = arrivals.get(request.webhookId) ?? [];
    times.push(request.receivedAt);
    arrivals.set(request.webhookId, times);
    if (request.duplicate) repeatsAfter2xx += 1;
  }
  const arrivalsPerDelivery: Record<string, number> = {};
  const repeatGapsMs: number[] = [];
  for (const times of arrivals.values()) {
    increment(arrivalsPerDelivery, String(times.length));
    for (let i = 1; i < times.length; i++) repeatGapsMs.push((times[i] as number) - (times[i - 1] as number));
  }
  return { arrivalsPerDelivery, repeatGapsMs, repeatsAfter2xx };
}

/**
 * Waits for the side's webhooks, then sums up what arrived about its orders.
 *
 * @example
 * const webhooks = await collectWebhooks(recorder, { profile, orders, timeoutMs: 10_000, quietMs: 500 });
 * webhooks.eventsPerOrder; // { Success: { "1": 40 }, Failed: { "1": 4 } }
 */
export async function collectWebhooks(
  recorder: WebhookRecorder,
  options: CollectOptions,
): Promise<WebhookObservations> {
  const { profile } = options;
  await waitForWebhooks(recorder, options);
  const finalOf = new Map(options.orders.map((order) => [order.reference, order.status]));
  const ours = recorder.inbox
    .deliveries()
    .filter((d) => d.order?.reference !== undefined && finalOf.has(d.order.reference));
  const statusEvents = ours.filter((d) => profile.isStatusEvent(d.payload) && d.order?.status !== undefined);
  // One status change may come under several delivery ids: count the ids per change, and the changes per order.
  const idsPerChange = new Map<string, number>();
  const changesOf = new Map<string, Set<number | undefined>>();
  for (const d of statusEvents) {
    const reference = d.order?.reference as string;
    const change = `${reference}\u0000${d.order?.status}`;
    idsPerChange.set(change, (idsPerChange.get(change) ?? 0) + 1);
    changesOf.set(reference, (changesOf.get(reference) ?? new Set()).add(d.order?.status));
  }
  const eventsPerOrder: Record<string, Record<string, number>> = {};
  for (const order of options.orders) {
    const told = changesOf.get(order.reference)?.size ?? 0;
    increment((eventsPerOrder[profile.statuses.nameOf(order.status)] ??= {}), String(told));
  }
  const readEvent = compilePointer(profile.resolved.event.pointer);
  const eventNames: Record<string, number> = {};
  for (const d of ours) {
    const name = readEvent(d.payload);
    increment(eventNames, typeof name === "string" || typeof name === "number" ? String(name) : "(no event name)");
  }
  return {
    eventsPerOrder,
    ...repeatsOf(recorder, new Set(ours.map((d) => d.webhookId))),
    statusChanges: idsPerChange.size,
    duplicatedChanges: [...idsPerChange.values()].filter((ids) => ids > 1).length,
    eventNames,
    requests: recorder.inbox.requests().length,
    invalidSignatures: recorder.inbox.rejected().length,
  };
}
