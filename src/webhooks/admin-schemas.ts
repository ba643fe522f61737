/**
 * The admin API's webhook delivery bodies (`/_sim/deliveries…`) as zod
 * schemas: the validation, the types and the admin OpenAPI document.
 * Times are ISO 8601; `sentAt`/`scheduledAt` are on the simulator clock,
 * `sentAtWall` on the wall clock (what `webhook-timestamp` carries).
 */
import { z } from "zod";
import {
  NextCursorSchema,
  PAGE_QUERY_SHAPE,
  REFERENCE_PREFIX_PARAM,
  TIME_QUERY_SHAPE,
} from "../contract/admin-pages.ts";
import { WebhookPayloadSchema } from "../contract/webhook-schemas.ts";
import { ATTEMPT_OUTCOMES, ATTEMPT_TRIGGERS, DELIVERY_KINDS, DELIVERY_STATES } from "./ports.ts";

const IsoTime = z.iso.datetime();

export const AdminDeliveryStateSchema = z.enum(DELIVERY_STATES).meta({
  id: "AdminDeliveryState",
  description:
    "`pending`: an attempt is scheduled or in flight; `delivered`: a 2xx came back; `failed`: the retry schedule ran out; " +
    "`disabled`: the endpoint answered 410 Gone (or is disabled or removed); `dropped`: a scenario said never to send it.",
});

export const AdminDeliveryAttemptSchema = z
  .object({
    number: z.number().int().min(1).meta({ description: "1-based, per delivery." }),
    trigger: z.enum(ATTEMPT_TRIGGERS).meta({
      description: "`schedule`: the retry schedule; `redeliver`: the admin API; `before_response`: a scenario.",
    }),
    scheduledAt: IsoTime.meta({ description: "When the attempt was due (simulator clock)." }),
    sentAt: IsoTime.meta({ description: "When it was sent (simulator clock)." }),
    sentAtWall: IsoTime.meta({ description: "When it was sent (wall clock; `webhook-timestamp`)." }),
    url: z.string(),
    requestHeaders: z.record(z.string(), z.string()),
    requestBody: z.string().meta({ description: "The exact body sent, as signed." }),
    responseStatus: z.number().int().nullable().meta({ description: "Null when no answer came." }),
    error: z
      .string()
      .nullable()
      .meta({ description: "`timeout`, `connection_refused` or another network error; null when answered." }),
    latencyMs: z.number().min(0),
    outcome: z.enum(ATTEMPT_OUTCOMES).meta({ description: "`gone`: answered 410, the endpoint is now disabled." }),
    retryAfterMs: z.number().min(0).nullable().meta({ description: "What a Retry-After header (429/503) asked for." }),
  })
  .meta({ id: "AdminDeliveryAttempt", title: "One HTTP attempt of a webhook delivery" });
export type AdminDeliveryAttempt = z.infer<typeof AdminDeliveryAttemptSchema>;

const deliveryShape = {
  id: z.string().meta({ description: "Delivery id (`dlv_…`)." }),
  messageId: z.string().meta({ description: "The `webhook-id` header; the same on every attempt and duplicate." }),
  kind: z.enum(DELIVERY_KINDS).meta({
    description:
      "`status`: the message for a status change; `duplicate`: an extra copy (scenario); `stale`: an out-of-order earlier status (scenario).",
  }),
  customerId: z.string(),
  orderId: z.string(),
  reference: z.string(),
  status: z.number().int().meta({ description: "The status code the body carries." }),
  final: z.boolean(),
  state: AdminDeliveryStateSchema,
  reason: z.string().nullable().meta({ description: "Why it failed, is disabled or was dropped." }),
  createdAt: IsoTime,
  nextAttemptAt: IsoTime.nullable().meta({
    description: "The next scheduled attempt (simulator clock); null when none.",
  }),
  deliveredAt: IsoTime.nullable(),
  attemptCount: z.number().int().min(0),
  parentId: z.string().nullable().meta({ description: "The delivery a duplicate or stale message came from." }),
  badSignature: z.boolean().meta({ description: "Signed with a wrong secret (scenario)." }),
  payload: z.union([
    WebhookPayloadSchema,
    z.record(z.string(), z.unknown()).meta({ description: "The body in a provider's dialect (serve --provider)." }),
  ]),
};

export const AdminDeliverySchema = z
  .object(deliveryShape)
  .meta({ id: "AdminDelivery", title: "A webhook message on its way to one endpoint" });
export type AdminDelivery = z.infer<typeof AdminDeliverySchema>;

export const AdminDeliveryDetailSchema = z
  .object({ ...deliveryShape, attempts: z.array(AdminDeliveryAttemptSchema) })
  .meta({ id: "AdminDeliveryDetail", title: "A webhook delivery with its attempts" });
export type AdminDeliveryDetail = z.infer<typeof AdminDeliveryDetailSchema>;

export const AdminDeliveryListSchema = z
  .object({ deliveries: z.array(AdminDeliverySchema), next_cursor: NextCursorSchema })
  .meta({ id: "AdminDeliveryList" });

export const AdminRedeliverResponseSchema = z
  .object({ delivery: AdminDeliveryDetailSchema, attempt: AdminDeliveryAttemptSchema })
  .meta({ id: "AdminRedeliverResponse", title: "The redelivery attempt and the delivery after it" });
export type AdminRedeliverResponse = z.infer<typeof AdminRedeliverResponseSchema>;

/** Query of `GET /_sim/deliveries`; every filter optional, combined with AND. */
export const AdminDeliveryQuerySchema = z
  .object({
    customer: z.string().min(1).max(64).optional(),
    order: z.string().min(1).max(128).optional(),
    reference: z.string().min(1).max(100).optional(),
    state: z.enum(DELIVERY_STATES).optional(),
    reference_prefix: REFERENCE_PREFIX_PARAM,
    ...TIME_QUERY_SHAPE,
    ...PAGE_QUERY_SHAPE,
  })
  .strict();

/** Body of `POST /_sim/deliveries/{id}/redeliver` (optional). */
export const AdminRedeliverRequestSchema = z
  .object({
    enable: z
      .boolean()
      .optional()
      .meta({ description: "Re-enable the customer's endpoint first when a 410 disabled it. Default false." }),
  })
  .strict();
