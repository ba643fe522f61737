/**
 * How a webhook is shaped and signed, behind one small interface: the
 * sequence model and the judge only see messages and headers, so a provider
 * profile's dialect can replace ours without touching them.
 *
 * Its one implementation is a provider profile's webhook as handler-check's
 * deliveries: the body and the headers written by the very renderer the
 * simulator sends with (its `webhook` layout and `signWebhook` signer), so a
 * handler is checked against exactly what `serve --provider` would send it;
 * our spec's webhook is the default profile's. Forgeries are made in the
 * profile's own scheme: a wrong key, an old timestamp where the scheme signs
 * one, a body altered after signing. Statuses are compared as codes of the
 * profile's table; a handler that stores the word ("COMPLETED") is read back
 * through that table.
 */
import type { ProviderProfile, ProfileSigning } from "../contract/provider-profile/schema.ts";
import type { StatusChange } from "../domain/service-types.ts";
import { isoTime } from "../contract/iso-time.ts";
import { mapStatuses } from "../contract/provider-profile/dialect-statuses.ts";
import { type DialectRenderer, compileRenderer } from "../contract/provider-profile/render.ts";
import { statusMessageId } from "../webhooks/delivery-ids.ts";
import { buildWebhookPayload } from "../webhooks/payload.ts";
import { generateWebhookSecret } from "../webhooks/signing.ts";
import { randomUUID } from "node:crypto";

/** One message the simulator's truth announces: its id, what it says, and the exact body bytes. */
export interface WebhookMessage {
  /** The message id (`webhook-id`), the same on every copy and retry. */
  readonly id: string;
  readonly reference: string;
  /** The status it announces, as a code of the dialect's table (what the handler is judged against). */
  readonly status: number;
  readonly final: boolean;
  readonly body: string;
}

/** The ways a delivery is made inauthentic; each must be refused with a 4xx and change nothing. */
export const FORGERIES = ["bad_signature", "stale_timestamp", "altered_body"] as const;
export type Forgery = (typeof FORGERIES)[number];

/** One request to the handler: method POST, these headers, this body. */
export interface SignedRequest {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface DeliveryDialect {
  /** Shown in reports. */
  readonly name: string;
  /** The provider profile the simulator's lookup speaks too; undefined for our spec. */
  readonly profile?: ProviderProfile | undefined;
  /** The forgeries this dialect's signing can be caught out by; the authenticity rule judges only these. */
  readonly forgeries: readonly Forgery[];
  /** Why each other forgery is not tried (an unsigned dialect has no signature to forge), for reports. */
  readonly notApplicable: Readonly<Partial<Record<Forgery, string>>>;
  /** Our status code as a code of the dialect's table: what a handler that applies its webhooks believes. */
  statusCode(ours: number): number;
  /** What the handler's app stores (a code, a numeric string, or the dialect's status word) as a code of its table. */
  readStatus(stored: unknown): number | undefined;
  /** The message a stored status change announces. */
  messageOf(change: StatusChange): WebhookMessage;
  /** A genuine attempt, signed at `timestampSeconds` (wall clock) with the handler's secret. */
  sign(message: WebhookMessage, timestampSeconds: number, secret: string): SignedRequest;
  /** An attempt made inauthentic in one way, at the same `timestampSeconds` otherwise. */
  forge(message: WebhookMessage, forgery: Forgery, timestampSeconds: number, secret: string): SignedRequest;
}

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

/**
 * Our spec's webhook: the flat `WebhookPayloadSchema` body, the id derived
 * from the change, Standard Webhooks headers, written by the default
 * profile's renderer exactly as the simulator's own dispatcher sends them.
 *
 * @example
 * const dialect = createStandardDialect();
 * const request = dialect.sign(message, Math.floor(Date.now() / 1000), "whsec_…");
 */
export function createStandardDialect(): DeliveryDialect {
  return {
    ...createProviderDialect(compileRenderer(undefined, { newUuid: randomUUID })),
    name: "airtime-harness spec (Standard Webhooks)",
  };
}
