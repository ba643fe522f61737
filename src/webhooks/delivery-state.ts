/**
 * The webhook plugin's part of a state file: every delivery with its
 * attempts. Checked on load so a hand-edited or foreign file is refused
 * whole, never half-loaded.
 */
import { z } from "zod";
import type { DeliveryStoreState } from "./memory-delivery-store.ts";
import { ATTEMPT_OUTCOMES, ATTEMPT_TRIGGERS, DELIVERY_KINDS, DELIVERY_STATES } from "./ports.ts";

const DeliverySchema = z.looseObject({
  id: z.string(),
  messageId: z.string(),
  kind: z.enum(DELIVERY_KINDS),
  customerId: z.string(),
  orderId: z.string(),
  reference: z.string(),
  status: z.int(),
  final: z.boolean(),
  body: z.string(),
  state: z.enum(DELIVERY_STATES),
  createdAt: z.number(),
  nextAttemptAt: z.number().nullable(),
  nextJobId: z.string().nullable(),
  scheduleIndex: z.int().min(0),
  attemptCount: z.int().min(0),
  deliveredAt: z.number().nullable(),
  badSignature: z.boolean(),
});

const AttemptSchema = z.looseObject({
  deliveryId: z.string(),
  number: z.int().min(1),
  trigger: z.enum(ATTEMPT_TRIGGERS),
  outcome: z.enum(ATTEMPT_OUTCOMES),
  sentAt: z.number(),
  url: z.string(),
  requestBody: z.string(),
});

const DeliveryStoreStateSchema = z.object({
  deliveries: z.array(z.object({ delivery: DeliverySchema, attempts: z.array(AttemptSchema) })),
});

/** The saved deliveries, or an error naming the first field that is wrong. */
export function parseDeliveryState(saved: unknown): DeliveryStoreState {
  const parsed = DeliveryStoreStateSchema.safeParse(saved);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`webhook deliveries: ${issue?.path.join(".") ?? ""} ${issue?.message ?? "not valid"}`);
  }
  // The fields checked above are the ones the dispatcher reads; the rest are kept as they were saved.
  return parsed.data as unknown as DeliveryStoreState;
}
