/**
 * The webhook the simulator sends when an order reaches a final status (and on
 * reversal): the provider's flat body, signed with Standard Webhooks headers.
 */
import { z } from "zod";
import { E164_ACCOUNT_PATTERN, ServiceSchema, StatusCodeSchema } from "./public-schemas.ts";

const WEBHOOK_EVENT_TYPES = ["airtime.status"] as const;

export const WebhookPayloadSchema = z
  .object({
    type: z.enum(WEBHOOK_EVENT_TYPES),
    id: z.string().min(1).meta({ description: "Transaction ID." }),
    reference: z.string(),
    status: StatusCodeSchema,
    message: z.string(),
    final: z.boolean().meta({ description: "True when `status` is final." }),
    service: ServiceSchema,
    account: z.string().regex(E164_ACCOUNT_PATTERN).meta({ description: "Recipient in E.164 form." }),
    amount: z.number(),
    balance: z.number().meta({ description: "The funding wallet's balance after this status, in KES." }),
    currency: z.string(),
    shortcode: z.string().nullable(),
    timestamp: z.iso.datetime().meta({ description: "When the status was reached (simulator clock)." }),
  })
  // The simulator writes this body: the document describes it closed, though it arrives as a request body.
  .meta({ id: "WebhookPayload", title: "Airtime status webhook", override: { additionalProperties: false } });
export type WebhookPayload = z.infer<typeof WebhookPayloadSchema>;

export const WebhookHeadersSchema = z
  .object({
    "webhook-id": z.string().min(1).meta({ description: "Message id, the same on every retry; dedupe on it." }),
    "webhook-timestamp": z.string().regex(/^\d+$/).meta({ description: "Unix seconds of this attempt (wall clock)." }),
    "webhook-signature": z
      .string()
      .regex(/^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$/)
      .meta({ description: "Space-separated `v1,<base64 HMAC-SHA256>` signatures, one per active secret." }),
  })
  .meta({ id: "WebhookHeaders" });
