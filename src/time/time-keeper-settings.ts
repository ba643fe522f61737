/**
 * The time keeper's settings, normalised once: its defaults in one place,
 * and one frozen settings object the time keeper reads as it is.
 */
import type { Job } from "../domain/ports.ts";

export interface TimeKeeperOptions {
  readonly mode: "real" | "virtual";
  /** Start of virtual time (ms since epoch); defaults to the real time at creation. */
  readonly startAt?: number | undefined;
  /** Real time source, injectable for tests (default `Date.now`). */
  readonly realNow?: () => number;
  /** Called when a job handler throws, instead of losing the error silently (default: console.error). */
  readonly onError?: ((error: unknown, job: Job) => void) | undefined;
}

function logJobError(error: unknown, job: Job): void {
  console.error(`scheduled job ${job.type} ${job.id} failed:`, error);
}

/**
 * @example
 * timeKeeperSettings({ mode: "virtual", realNow: () => 5 }).virtualStartAt; // 5
 */
export function timeKeeperSettings(options: TimeKeeperOptions) {
  const realNow = options.realNow ?? (() => Date.now());
  return Object.freeze({
    mode: options.mode,
    realNow,
    /** Where virtual time starts; undefined for a real clock, which follows `realNow`. */
    virtualStartAt: options.mode === "virtual" ? (options.startAt ?? realNow()) : undefined,
    onError: options.onError ?? logJobError,
  });
}
