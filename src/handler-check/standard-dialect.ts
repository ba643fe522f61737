/**
 * Our spec's webhook: the flat `WebhookPayloadSchema` body, the id derived
 * from the change, Standard Webhooks headers signed by the `standardwebhooks`
 * package, exactly as the simulator's own dispatcher sends them.
 */
import type { StatusChange } from "../domain/service-types.ts";
import { buildWebhookPayload } from "../webhooks/payload.ts";
import { statusMessageId } from "../webhooks/delivery-ids.ts";
import { generateWebhookSecret, signWebhook } from "../webhooks/signing.ts";
import type { DeliveryDialect, Forgery, SignedRequest, WebhookMessage } from "./delivery-dialect.ts";

/** Receivers allow ±5 minutes; ten minutes old is beyond any sane tolerance. */
const STALE_BY_SECONDS = 10 * 60;

const SUCCESS = 20;

function signed(message: WebhookMessage, body: string, timestampSeconds: number, secret: string): SignedRequest {
  const headers = signWebhook({ id: message.id, timestampSeconds, body, secrets: [secret] });
  return { headers: { "content-type": "application/json", ...headers }, body };
}

/** The body with its status turned into a success: the alteration an attacker would make. */
function alteredBody(message: WebhookMessage): string {
  const payload = JSON.parse(message.body) as Record<string, unknown>;
  const status = payload.status === SUCCESS ? 2 : SUCCESS;
  return JSON.stringify({ ...payload, status, message: status === SUCCESS ? "Success" : "Failed", final: true });
}

/**
 * @example
 * const dialect = createStandardDialect();
 * const request = dialect.sign(message, Math.floor(Date.now() / 1000), "whsec_…");
 */
export function createStandardDialect(): DeliveryDialect {
  return {
    name: "airtime-harness spec (Standard Webhooks)",
    messageOf(change: StatusChange): WebhookMessage {
      const payload = buildWebhookPayload(change);
      return {
        id: statusMessageId(change.order.id, change.order.history.length),
        reference: payload.reference,
        status: payload.status,
        final: payload.final,
        body: JSON.stringify(payload),
      };
    },
    sign: (message, timestampSeconds, secret) => signed(message, message.body, timestampSeconds, secret),
    forge(message: WebhookMessage, forgery: Forgery, timestampSeconds: number, secret: string): SignedRequest {
      switch (forgery) {
        case "bad_signature":
          return signed(message, message.body, timestampSeconds, generateWebhookSecret());
        case "stale_timestamp":
          return signed(message, message.body, timestampSeconds - STALE_BY_SECONDS, secret);
        case "altered_body": {
          const genuine = signed(message, message.body, timestampSeconds, secret);
          return { headers: genuine.headers, body: alteredBody(message) };
        }
        default: {
          const unreachable: never = forgery;
          throw new Error(`unknown forgery ${String(unreachable)}`);
        }
      }
    },
  };
}
