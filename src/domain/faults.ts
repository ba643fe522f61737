/**
 * Webhook misbehaviour a scenario can attach to an order. Plain data, stored
 * on the order, read by the webhook dispatcher; the domain only carries it.
 */
export interface WebhookFaults {
  /** Extra delay before the first attempt of each message. */
  readonly delayMs?: number;
  /** Send each message this many extra times (same webhook-id). */
  readonly duplicates?: number;
  /** After the final status, send a stale earlier status (out of order). */
  readonly staleAfterFinal?: boolean;
  /** Sign with a wrong secret. */
  readonly badSignature?: boolean;
  /** Never send. */
  readonly drop?: boolean;
  /** Deliver the final webhook before the HTTP response is written. */
  readonly beforeResponse?: boolean;
}
