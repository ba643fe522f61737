/**
 * Announce: a status change becomes deliveries. A message for every final
 * status (and reversal), and for intermediate ones when asked, with what a
 * scenario asked of it (dropped, delayed, duplicated, a bad signature, a
 * stale follow-up); each delivery is stored, then its first attempt is
 * scheduled.
 */
import { isoTime } from "../contract/iso-time.ts";
import { isFinalStatus } from "../contract/status-codes.ts";
import type { StatusChange } from "../domain/service-types.ts";
import { scheduleAttempt } from "./attempt-jobs.ts";
import { deliveryIdOf, statusMessageId } from "./delivery-ids.ts";
import { jobIdFor } from "./delivery-transitions.ts";
import type { DispatchKit } from "./dispatch-kit.ts";
import { buildStalePayload, buildWebhookPayload, staleEntryBefore } from "./payload.ts";
import type { Delivery, DeliveryKind } from "./ports.ts";
import { withJitter } from "./schedule.ts";

/** A delivery's own fields, before the dispatcher gives it its schedule. */
export type DeliveryFields = Omit<
  Delivery,
  "id" | "nextJobId" | "nextAttemptAt" | "scheduleIndex" | "attemptCount" | "deliveredAt"
>;

export interface Announcer {
  statusChanged(change: StatusChange): Promise<void>;
  /**
   * Stores a new delivery and, unless `scheduleFirst` is false, schedules its
   * first attempt at `dueAt` (none when null). The id is derived from what it
   * announces, so announcing again finds the delivery made the first time.
   */
  createDelivery(
    id: string,
    fields: DeliveryFields,
    dueAt: number | null,
    options?: { readonly scheduleFirst?: boolean; readonly repeated?: boolean },
  ): Promise<Delivery>;
}

export function createAnnouncer(kit: DispatchKit): Announcer {
  const { store, clock, statusTable, retry } = kit;

  const createDelivery: Announcer["createDelivery"] = (id, fields, dueAt, options = {}) =>
    storeDelivery(kit, { id, fields, dueAt, ...options });

  async function statusChanged(change: StatusChange): Promise<void> {
    const { order } = change;
    if (!change.final && !kit.intermediate) return;
    const endpoint = (change.customer ?? (await store.getCustomer(order.customerId)))?.webhook;
    // No endpoint configured: nothing to send, nothing to show.
    if (endpoint === undefined) return;
    const faults = order.webhookFaults ?? {};
    const now = clock.now();
    // Only the first final status gets a stale follow-up, not a later reversal.
    const firstFinal = change.final && !isFinalStatus(statusTable, change.previousStatus);
    const stale = faults.staleAfterFinal === true && firstFinal ? staleEntryBefore(change, statusTable) : undefined;
    const messageId = statusMessageId(order.id, order.history.length);
    const deliveryId = deliveryIdOf(messageId);
    const announcement = { repeated: change.repeated === true };
    const context = { createdAt: isoTime(order.createdAt), deliveryId: messageId };
    const fields = {
      messageId,
      kind: "status" as DeliveryKind,
      customerId: order.customerId,
      orderId: order.id,
      reference: order.reference,
      status: order.status,
      final: change.final,
      body: JSON.stringify(kit.dialect.webhook(buildWebhookPayload(change), context)),
      createdAt: now,
      badSignature: faults.badSignature === true,
      ...(stale === undefined
        ? {}
        : {
            followUp: {
              status: stale.status,
              body: JSON.stringify(kit.dialect.webhook(buildStalePayload(change, stale), context)),
            },
          }),
    };
    // Recorded, never sent: dropped by a scenario, or for an endpoint a 410 or an admin turned off.
    if (faults.drop === true || endpoint.disabled === true) {
      const why =
        faults.drop === true
          ? { state: "dropped" as const, reason: "dropped by a scenario" }
          : { state: "disabled" as const, reason: "the endpoint is disabled" };
      await createDelivery(deliveryId, { ...fields, ...why }, null, announcement);
      return;
    }
    const dueAt =
      now + (faults.delayMs ?? 0) + withJitter(retry.schedule[0] ?? 0, retry.jitter, () => kit.random.next());
    const original = await createDelivery(deliveryId, { ...fields, state: "pending" }, dueAt, announcement);
    const { followUp: _once, ...copy } = fields;
    for (let i = 1; i <= (faults.duplicates ?? 0); i++) {
      const duplicate = { ...copy, kind: "duplicate" as const, parentId: original.id, state: "pending" as const };
      await createDelivery(`${deliveryId}d${i}`, duplicate, dueAt, announcement);
    }
  }

  return { statusChanged, createDelivery };
}

/**
 * A new delivery stored, then its first attempt scheduled. A repeated
 * announcement (after a process died between storing the delivery and
 * scheduling its job) schedules that job, unless it exists, where the
 * placement says that can happen.
 */
async function storeDelivery(
  kit: DispatchKit,
  request: {
    readonly id: string;
    readonly fields: DeliveryFields;
    readonly dueAt: number | null;
    readonly scheduleFirst?: boolean;
    readonly repeated?: boolean;
  },
): Promise<Delivery> {
  const { id, fields, dueAt, scheduleFirst = true, repeated = false } = request;
  const firstJob = jobIdFor(id, 0);
  const delivery: Delivery = {
    ...fields,
    id,
    nextAttemptAt: dueAt,
    nextJobId: dueAt === null ? null : firstJob,
    scheduleIndex: 0,
    attemptCount: 0,
    deliveredAt: null,
  };
  // Stored before its job exists, so the job always finds it.
  const fresh = await kit.deliveries.insert(delivery);
  const stored = fresh ? delivery : ((await kit.deliveries.get(id)) ?? delivery);
  const missed =
    repeated && kit.placement.mayMissFirstJob && stored.state === "pending" && stored.nextJobId === firstJob;
  if (stored.nextAttemptAt !== null && scheduleFirst && (fresh || missed)) {
    const job = { id: firstJob, dueAt: stored.nextAttemptAt, deliveryId: id, scheduleIndex: 0 };
    await scheduleAttempt(kit.scheduler, { ...job, ifAbsent: !fresh });
  }
  return stored;
}
