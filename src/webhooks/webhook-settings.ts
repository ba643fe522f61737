/**
 * Webhook delivery's settings, normalised once: every default of the
 * dispatcher in one table, and one frozen object built from its options
 * (the simulator's `webhooks` key, or a direct caller's) that the dispatcher
 * reads as it is. Text forms (`0,100ms,1s`, `500ms`) are parsed here too, so
 * an unusable schedule, timeout or jitter fails before anything is sent.
 */
import { createMemoryDeliveryStore } from "./memory-delivery-store.ts";
import type { DeliveryStore } from "./ports.ts";
import { resolveSchedule, resolveTimeout } from "./schedule.ts";

export interface WebhookDispatcherOptions {
  /** Delay before each attempt (ms list or text like `0,100ms,1s`); default Standard Webhooks' example. */
  readonly schedule?: readonly number[] | string | undefined;
  /** Per-attempt timeout (ms or text like `500ms`); default 15 s. */
  readonly timeout?: number | string | undefined;
  /** Relative jitter on each retry delay, 0..1 (0.1 = ±10 %); default 0.1. Drawn from the seeded source. */
  readonly jitter?: number | undefined;
  /** Also send intermediate (pending-class) statuses; default false. */
  readonly intermediate?: boolean | undefined;
  readonly deliveryStore?: DeliveryStore | undefined;
  /** Wall clock for `webhook-timestamp` and latencies; injectable for tests. */
  readonly wallClock?: (() => number) | undefined;
  /** Attempts in flight at once, all endpoints together; default 256. Freed slots go to endpoints in turn. */
  readonly maxConcurrentAttempts?: number | undefined;
  /** Attempts in flight at once to one customer's endpoint; default 32. */
  readonly maxConcurrentPerEndpoint?: number | undefined;
  /** Attempts waiting for a slot, per endpoint; one more sheds the oldest as a failed `queue_overflow` attempt. Default 1000. */
  readonly maxQueuedPerEndpoint?: number | undefined;
}

/** The dispatcher's defaults; the schedule's and the timeout's are `schedule.ts`'s, with their parsers. */
const WEBHOOK_DEFAULTS = Object.freeze({
  jitter: 0.1,
  intermediate: false,
  maxConcurrentAttempts: 256,
  maxConcurrentPerEndpoint: 32,
  maxQueuedPerEndpoint: 1000,
});

interface WebhookSettings {
  readonly schedule: readonly number[];
  readonly timeoutMs: number;
  readonly jitter: number;
  readonly intermediate: boolean;
  readonly deliveryStore: DeliveryStore;
  readonly wallClock: () => number;
  readonly maxConcurrentAttempts: number;
  readonly maxConcurrentPerEndpoint: number;
  readonly maxQueuedPerEndpoint: number;
}

/**
 * Throws a RangeError for an unusable jitter, schedule or timeout.
 *
 * @example
 * webhookSettings({ schedule: "0,100ms,1s", timeout: "500ms" }).schedule; // [0, 100, 1000]
 */
export function webhookSettings(options: WebhookDispatcherOptions): WebhookSettings {
  const jitter = options.jitter ?? WEBHOOK_DEFAULTS.jitter;
  if (!(jitter >= 0 && jitter <= 1)) throw new RangeError("jitter must be within 0..1");
  return Object.freeze({
    schedule: resolveSchedule(options.schedule),
    timeoutMs: resolveTimeout(options.timeout),
    jitter,
    intermediate: options.intermediate ?? WEBHOOK_DEFAULTS.intermediate,
    deliveryStore: options.deliveryStore ?? createMemoryDeliveryStore(),
    wallClock: options.wallClock ?? Date.now,
    maxConcurrentAttempts: options.maxConcurrentAttempts ?? WEBHOOK_DEFAULTS.maxConcurrentAttempts,
    maxConcurrentPerEndpoint: options.maxConcurrentPerEndpoint ?? WEBHOOK_DEFAULTS.maxConcurrentPerEndpoint,
    maxQueuedPerEndpoint: options.maxQueuedPerEndpoint ?? WEBHOOK_DEFAULTS.maxQueuedPerEndpoint,
  });
}
