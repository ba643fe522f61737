/**
 * The records of webhook deliveries and the port that stores them. Plain
 * data (JSON-safe) and an async port, so a Redis adapter can keep deliveries
 * across restarts like the scheduler keeps their attempts.
 *
 * A *message* is one webhook (`webhook-id`, body). A *delivery* is one
 * message on its way to one endpoint, with its own retry schedule; a
 * duplicated message (a scenario fault) is several deliveries sharing one
 * message id. An *attempt* is one HTTP request of a delivery.
 */

/**
 * - `pending`: an attempt is scheduled or in flight;
 * - `delivered`: an attempt got a 2xx;
 * - `failed`: the schedule ran out without a 2xx;
 * - `disabled`: the endpoint answered 410 Gone, was disabled or removed;
 * - `dropped`: a scenario said never to send it.
 */
export const DELIVERY_STATES = ["pending", "delivered", "failed", "disabled", "dropped"] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** `status`: the message for a status change; `duplicate`: a scenario's extra copy; `stale`: a scenario's out-of-order message. */
export const DELIVERY_KINDS = ["status", "duplicate", "stale"] as const;
export type DeliveryKind = (typeof DELIVERY_KINDS)[number];

/** What started an attempt. */
export const ATTEMPT_TRIGGERS = ["schedule", "redeliver", "before_response"] as const;
export type AttemptTrigger = (typeof ATTEMPT_TRIGGERS)[number];

export const ATTEMPT_OUTCOMES = ["delivered", "failed", "gone"] as const;
/** `gone`: the endpoint answered 410 and was disabled. */
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

export interface Delivery {
  /** `dlv_…` */
  readonly id: string;
  /** `msg_…`, sent as `webhook-id`; the same on every attempt (and every duplicate). */
  readonly messageId: string;
  readonly kind: DeliveryKind;
  readonly customerId: string;
  readonly orderId: string;
  readonly reference: string;
  /** The status code the body carries. */
  readonly status: number;
  readonly final: boolean;
  /** The exact body sent on every attempt. */
  readonly body: string;
  readonly state: DeliveryState;
  /** Why it is disabled, failed or dropped. */
  readonly reason?: string;
  /** Simulator-clock ms. */
  readonly createdAt: number;
  /** Simulator-clock ms of the next scheduled attempt; null when none is scheduled. */
  readonly nextAttemptAt: number | null;
  /** The scheduler job of the next attempt; a job that is not this one is stale and ignored. */
  readonly nextJobId: string | null;
  /** Index into the retry schedule of the next scheduled attempt. */
  readonly scheduleIndex: number;
  readonly attemptCount: number;
  readonly deliveredAt: number | null;
  /** Sign with a wrong secret (scenario fault). */
  readonly badSignature: boolean;
  /**
   * A stale earlier status to send, under a new message id, once this final
   * message is done with (scenario fault: out of order).
   */
  readonly followUp?: { readonly status: number; readonly body: string };
  /** For duplicates and stale messages: the delivery they came from. */
  readonly parentId?: string;
}

export interface DeliveryAttempt {
  readonly deliveryId: string;
  readonly messageId: string;
  readonly customerId: string;
  readonly orderId: string;
  readonly reference: string;
  /** 1-based, per delivery. */
  readonly number: number;
  readonly trigger: AttemptTrigger;
  /** Simulator-clock ms the attempt was due. */
  readonly scheduledAt: number;
  /** Simulator-clock ms it was sent. */
  readonly sentAt: number;
  /** Wall-clock ms it was sent (what `webhook-timestamp` says, in seconds). */
  readonly sentAtWall: number;
  readonly url: string;
  readonly requestHeaders: Readonly<Record<string, string>>;
  readonly requestBody: string;
  /** HTTP status of the answer; null when there was none. */
  readonly responseStatus: number | null;
  /** `timeout`, `connection_refused`, or another network error; null when answered. */
  readonly error: string | null;
  /** Wall-clock ms from send to answer or error. */
  readonly latencyMs: number;
  readonly outcome: AttemptOutcome;
  /** What a `Retry-After` header asked for, in ms. */
  readonly retryAfterMs?: number;
}

export interface DeliveryFilter {
  readonly customerId?: string | undefined;
  readonly orderId?: string | undefined;
  readonly reference?: string | undefined;
  readonly referencePrefix?: string | undefined;
  readonly state?: DeliveryState | undefined;
  readonly messageId?: string | undefined;
}

/** A page of deliveries, oldest first; the creation-time window is simulator-clock ms. */
export interface DeliveryPageQuery extends DeliveryFilter {
  readonly from?: number | undefined;
  readonly to?: number | undefined;
  readonly limit: number;
  /** Opaque: a `nextCursor` from the previous page. */
  readonly cursor?: string | undefined;
}

export interface DeliveryStore {
  /** Insert-if-absent: false, changing nothing, when a delivery with this id exists. */
  insert(delivery: Delivery): Promise<boolean>;
  get(id: string): Promise<Delivery | undefined>;
  /** Atomic read-modify-write; undefined when the delivery is gone (reset). */
  update(id: string, change: (current: Delivery) => Delivery): Promise<Delivery | undefined>;
  /** In creation order. */
  list(filter?: DeliveryFilter): Promise<Delivery[]>;
  /**
   * One page, in creation order. The adapter bounds one call's work: a page
   * may hold fewer than `limit` deliveries while `nextCursor` is not null.
   */
  listPage(query: DeliveryPageQuery): Promise<{ deliveries: Delivery[]; nextCursor: string | null }>;
  /** Forgets every delivery and attempt of these orders (evicted under the order cap). */
  removeOrders(orderIds: readonly string[]): Promise<void>;
  addAttempt(attempt: DeliveryAttempt): Promise<void>;
  /** In attempt order. */
  attempts(deliveryId: string): Promise<DeliveryAttempt[]>;
  /** Removes one customer's deliveries and attempts, or everything. */
  reset(customerId?: string): Promise<void>;
}
