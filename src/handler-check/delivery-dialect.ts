/**
 * How a webhook is shaped and signed, behind one small interface: the
 * sequence model and the judge only see messages and headers, so a provider
 * profile's dialect can replace ours without touching them.
 */
import type { ProviderProfile } from "../contract/provider-profile/schema.ts";
import type { StatusChange } from "../domain/service-types.ts";

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
