/**
 * Failed admin authentication, counted per client address in a sliding
 * window: past the limit, that address is answered 429 `too_many_attempts`
 * (with `Retry-After`) until its oldest failure leaves the window, whatever
 * token it sends, so guessing the admin token costs a window per few tries.
 * The wall clock, not the simulator's: a virtual clock must not lift it.
 * Memory stays bounded: at most `maxAddresses` are tracked, the least
 * recently failing forgotten first.
 */
export interface AdminThrottleOptions {
  /** Failures allowed per address within the window (default 10). */
  readonly maxFailures?: number;
  /** The window, ms (default 60 s). */
  readonly windowMs?: number;
  /** Addresses tracked at once (default 10,000). */
  readonly maxAddresses?: number;
  readonly now?: () => number;
}

export interface AdminThrottle {
  /** Seconds until `address` may try again, or 0 when it may now. */
  retryAfterSeconds(address: string): number;
  recordFailure(address: string): void;
}

const DEFAULT_MAX_FAILURES = 10;
const DEFAULT_WINDOW_MS = 60_000;
const DEFAULT_MAX_ADDRESSES = 10_000;

export function createAdminThrottle(options: AdminThrottleOptions = {}): AdminThrottle {
  const maxFailures = options.maxFailures ?? DEFAULT_MAX_FAILURES;
  const windowMs = options.windowMs ?? DEFAULT_WINDOW_MS;
  const maxAddresses = options.maxAddresses ?? DEFAULT_MAX_ADDRESSES;
  const now = options.now ?? (() => Date.now());
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
