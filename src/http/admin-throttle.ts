/**
 * Failed admin authentication, counted per client address in a sliding
 * window: past the limit, that address is answered 429 `too_many_attempts`
 * (with `Retry-After`) until its oldest failure leaves the window, whatever
 * token it sends, so guessing the admin token costs a window per few tries.
 * The wall clock, not the simulator's: a virtual clock must not lift it.
 * Memory stays bounded: at most `maxAddresses` are tracked, the least
 * recently failing forgotten first.
 */

/**
 * The admin throttle's settings, normalised once: its defaults in one
 * table, and one frozen settings object the throttle reads as it is.
 */
export interface AdminThrottleOptions {
  /** Failures allowed per address within the window (default 10). */
  readonly maxFailures?: number;
  /** The window, ms (default 60 s). */
  readonly windowMs?: number;
  /** Addresses tracked at once (default 10,000). */
  readonly maxAddresses?: number;
  /** The wall clock (default `Date.now`): a virtual clock must not lift the throttle. */
  readonly now?: () => number;
}

const ADMIN_THROTTLE_DEFAULTS = Object.freeze({
  maxFailures: 10,
  windowMs: 60_000,
  maxAddresses: 10_000,
});

/**
 * @example
 * adminThrottleSettings({ maxFailures: 3 }).windowMs; // 60_000
 */
function adminThrottleSettings(options: AdminThrottleOptions) {
  return Object.freeze({
    maxFailures: options.maxFailures ?? ADMIN_THROTTLE_DEFAULTS.maxFailures,
    windowMs: options.windowMs ?? ADMIN_THROTTLE_DEFAULTS.windowMs,
    maxAddresses: options.maxAddresses ?? ADMIN_THROTTLE_DEFAULTS.maxAddresses,
    now: options.now ?? (() => Date.now()),
  });
}

export interface AdminThrottle {
  /** Seconds until `address` may try again, or 0 when it may now. */
  retryAfterSeconds(address: string): number;
  recordFailure(address: string): void;
}

export function createAdminThrottle(options: AdminThrottleOptions = {}): AdminThrottle {
  const { maxFailures, windowMs, maxAddresses, now } = adminThrottleSettings(options);
  // The newest `maxFailures` failure times of each address, oldest first; Map order: least recent first.
  const failures = new Map<string, number[]>();

  function recent(address: string, at: number): number[] {
    const times = (failures.get(address) ?? []).filter((time) => time > at - windowMs);
    if (times.length === 0) failures.delete(address);
    return times;
  }

  return {
    retryAfterSeconds(address) {
      const at = now();
      const times = recent(address, at);
      if (times.length < maxFailures) return 0;
      return Math.max(1, Math.ceil(((times[0] as number) + windowMs - at) / 1000));
    },
    recordFailure(address) {
      const at = now();
      const times = [...recent(address, at), at].slice(-maxFailures);
      failures.delete(address);
      failures.set(address, times);
      if (failures.size > maxAddresses) {
        const oldest = failures.keys().next().value;
        if (oldest !== undefined) failures.delete(oldest);
      }
    },
  };
}
