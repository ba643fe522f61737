/**
 * Idempotency building blocks: the payload fingerprint a key is bound to, and the
 * in-process queue that makes concurrent requests with one key wait for the
 * first one's result.
 */
import * as nodeCrypto from "node:crypto";
import type { OrderFingerprint } from "./model.ts";

/** Keys are kept 24 hours on the simulator clock (interface §4.4). */
export const DEFAULT_KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;

/**
 * The SHA-256 (base64url) of the normalised payload as JSON with sorted
 * fields, so equal payloads give equal fingerprints whatever the field order
 * or written form (`0712…`/`+254712…`, `10.1`/`10.10`) the client used. A
 * digest, not the text: it is kept with every key for the key's retention,
 * and 43 characters hold what the text took about 125 for.
 *
 * @example
 * fingerprintOrder({ account: "+254712345678", service: "safaricom", amountCents: 1010,
 *   currency: "KES", reference: "r1", shortcode: null });
 * // the SHA-256 of '{"account":"+254712345678","amountCents":1010,"currency":"KES","reference":"r1","service":"safaricom","shortcode":null}'
 */
export function fingerprintOrder(fingerprint: OrderFingerprint): string {
  return sha256(fingerprintOfKnownFields(fingerprint) ?? fingerprintOfAnyFields(fingerprint));
}

/** In one call where Node has `crypto.hash` (20.12+), else through a Hash object. */
const sha256: (text: string) => string =
  typeof nodeCrypto.hash === "function"
    ? (text) => nodeCrypto.hash("sha256", text, "base64url")
    : (text) => nodeCrypto.createHash("sha256").update(text, "utf8").digest("base64url");

/** The fields of an `OrderFingerprint`, sorted. */
const FINGERPRINT_FIELDS = ["account", "amountCents", "currency", "reference", "service", "shortcode"] as const;

/**
 * The same text without sorting, for the usual case: exactly the known
 * fields, none undefined (`JSON.stringify` would leave such a field out).
 * Undefined for anything else.
 */
function fingerprintOfKnownFields(fingerprint: OrderFingerprint): string | undefined {
  if (Object.keys(fingerprint).length !== FINGERPRINT_FIELDS.length) return undefined;
  let text = "{";
  for (const field of FINGERPRINT_FIELDS) {
    if (!Object.hasOwn(fingerprint, field)) return undefined;
    const value = JSON.stringify(fingerprint[field]);
    if (value === undefined) return undefined;
    text += `${text.length === 1 ? "" : ","}"${field}":${value}`;
  }
  return `${text}}`;
}

function fingerprintOfAnyFields(fingerprint: OrderFingerprint): string {
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

/** One task's place in its key's queue. */
interface Slot {
  settled: boolean;
  /** Made only when a later task waits for this one: the usual task has nobody behind it. */
  finished: Promise<void> | undefined;
  release: (() => void) | undefined;
}

function finishedOf(slot: Slot): Promise<void> {
  if (slot.settled) return Promise.resolve();
  slot.finished ??= new Promise<void>((resolve) => {
    slot.release = resolve;
  });
  return slot.finished;
}

/**
 * One FIFO queue per key. Same-key requests run one after another, so the
 * second finds the first's record complete (replay) or released (it claims
 * the key itself); different keys never wait for each other. Entries are
 * removed when their queue drains, so memory stays bounded by concurrency.
 */
export function createKeyedQueue(): KeyedQueue {
  /** The last task queued under each key. */
  const tails = new Map<string, Slot>();
  return {
    async run<T>(key: string, task: () => Promise<T>): Promise<T> {
      const previous = tails.get(key);
      const mine: Slot = { settled: false, finished: undefined, release: undefined };
      tails.set(key, mine);
      // Nothing queued for this key (the usual case): start at once.
      if (previous !== undefined) await finishedOf(previous);
      try {
        return await task();
      } finally {
        mine.settled = true;
        mine.release?.();
        if (tails.get(key) === mine) tails.delete(key);
      }
    },
    get size() {
      return tails.size;
    },
  };
}
