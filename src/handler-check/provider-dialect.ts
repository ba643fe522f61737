/**
 * A provider profile's webhook as handler-check's deliveries: the body and
 * the headers written by the very renderer the simulator sends with (its
 * `webhook` layout and `signWebhook` signer), so a handler is checked against
 * exactly what `serve --provider` would send it. Forgeries are made in the
 * profile's own scheme: a wrong key, an old timestamp where the scheme signs
 * one, a body altered after signing. Statuses are compared as codes of the
 * profile's table; a handler that stores the word ("COMPLETED") is read back
 * through that table.
 */
import { isoTime } from "../contract/iso-time.ts";
import { mapStatuses } from "../contract/provider-profile/dialect-statuses.ts";
import type { DialectRenderer } from "../contract/provider-profile/render.ts";
import type { ProfileSigning } from "../contract/provider-profile/schema.ts";
import type { StatusChange } from "../domain/service-types.ts";
import { statusMessageId } from "../webhooks/delivery-ids.ts";
import { buildWebhookPayload } from "../webhooks/payload.ts";
import { generateWebhookSecret } from "../webhooks/signing.ts";
import {
  FORGERIES,
  type DeliveryDialect,
  type Forgery,
  type SignedRequest,
  type WebhookMessage,
} from "./delivery-dialect.ts";

/** Receivers allow ±5 minutes; ten minutes old is beyond any sane tolerance. */
const STALE_BY_SECONDS = 10 * 60;

const SUCCESS = 20;

/** Our spec's payload with its status turned into a success: the alteration an attacker would make. */
function alteredPayload(payload: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const status = payload.status === SUCCESS ? 2 : SUCCESS;
  return { ...payload, status, message: status === SUCCESS ? "Success" : "Failed", final: true };
}

const UNSIGNED = "the profile signs nothing (signing: none), so there is no signature to check";

/** The forgeries a scheme can be caught out by, and why the others are not tried. */
function forgeriesOf(signing: ProfileSigning): Pick<DeliveryDialect, "forgeries" | "notApplicable"> {
  if (signing.scheme === "none") {
    return { forgeries: [], notApplicable: Object.fromEntries(FORGERIES.map((forgery) => [forgery, UNSIGNED])) };
  }
  if (signing.scheme === "hmac" && signing.signed !== "timestamp.body") {
    return {
      forgeries: ["bad_signature", "altered_body"],
      notApplicable: { stale_timestamp: "the HMAC covers the body alone, so no timestamp can be stale" },
    };
  }
  return { forgeries: FORGERIES, notApplicable: {} };
}

/**
 * @example
 * const dialect = createProviderDialect(compileRenderer(loaded, { newUuid: randomUUID }));
 * await runHandlerCheck({ ...options, dialect });
 */
export function createProviderDialect(renderer: DialectRenderer): DeliveryDialect {
  const { profile, source } = renderer;
  const table = source?.statuses?.table;
  const toProfile = table === undefined ? undefined : mapStatuses(table);
  // The altered body of each message, written when the message is, so it is in the dialect too.
  const altered = new Map<string, string>();

  function signed(message: WebhookMessage, body: string, timestampSeconds: number, secret: string): SignedRequest {
    const headers = renderer.signWebhook({ id: message.id, timestampSeconds, body, secrets: [secret] });
    return { headers: { "content-type": "application/json", ...headers }, body };
  }

  return {
    name: `${profile.name} (${renderer.profile.verifier(undefined).description})`,
    profile: source,
    ...forgeriesOf(profile.resolved.signing),
    statusCode: (ours) => (toProfile === undefined ? ours : toProfile(ours).code),
    readStatus: (stored) => profile.statuses.fromValue(stored, "any"),
    messageOf(change: StatusChange): WebhookMessage {
      const payload = buildWebhookPayload(change);
      const id = statusMessageId(change.order.id, change.order.history.length);
      const context = { createdAt: isoTime(change.order.createdAt), deliveryId: id };
      altered.set(id, JSON.stringify(renderer.webhook(alteredPayload(payload), context)));
      return {
        id,
        reference: payload.reference,
        status: toProfile === undefined ? payload.status : toProfile(payload.status).code,
        final: payload.final,
        body: JSON.stringify(renderer.webhook(payload, context)),
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
          return { headers: genuine.headers, body: altered.get(message.id) ?? message.body };
        }
        default: {
          const unreachable: never = forgery;
          throw new Error(`unknown forgery ${String(unreachable)}`);
        }
      }
    },
  };
}
