/**
 * Idempotency building blocks: the payload fingerprint a key is bound to, and the
 * in-process queue that makes concurrent requests with one key wait for the
 * first one's result.
 */
import type { OrderFingerprint } from "./model.ts";

/** Keys are kept 24 hours on the simulator clock (interface §4.4). */
export const DEFAULT_IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

/**
 * The normalised payload as JSON with sorted fields, so equal payloads give
 * equal text whatever the field order or written form
 * (`0712…`/`+254712…`, `10.1`/`10.10`) the client used.
 *
 * @example
 * fingerprintOrder({ account: "+254712345678", service: "safaricom", amountCents: 1010,
 *   currency: "KES", reference: "r1", shortcode: null });
 * // '{"account":"+254712345678","amountCents":1010,"currency":"KES","reference":"r1","service":"safaricom","shortcode":null}'
 */
export function fingerprintOrder(fingerprint: OrderFingerprint): string {
  const sorted: Record<string, unknown> = {};
  for (const field of Object.keys(fingerprint).sort()) {
    sorted[field] = fingerprint[field as keyof OrderFingerprint];
  }
  return JSON.stringify(sorted);
}

export interface KeyedQueue {
  /** Runs `task` after every earlier task with the same key has settled. */
  run<T>(key: string, task: () => Promise<T>): Promise<T>;
  /** Keys with a task running or waiting (for tests and diagnostics). */
  readonly size: number;
}

/**
 * One FIFO queue per key. Same-key requests run one after another, so the
 * second finds the first's record complete (replay) or released (it claims
 * the key itself); different keys never wait for each other. Entries are
 * removed when their queue drains, so memory stays bounded by concurrency.
 */
export function createKeyedQueue(): KeyedQueue {
  const tails = new Map<string, Promise<void>>();
  return {
    async run<T>(key: string, task: () => Promise<T>): Promise<T> {
      const previous = tails.get(key) ?? Promise.resolve();
      let done!: () => void;
      const mine = new Promise<void>((resolve) => {
        done = resolve;
      });
      const tail = previous.then(() => mine);
      tails.set(key, tail);
      await previous;
      try {
        return await task();
      } finally {
        done();
        if (tails.get(key) === tail) tails.delete(key);
      }
    },
    get size() {
      return tails.size;
    },
  };
}
