/**
 * Failed admin authentication, counted per client address in a sliding
 * window: past the limit, that address is answered 429 `too_many_attempts`
 * (with `Retry-After`) until its oldest failure leaves the window, whatever
 * token it sends, so guessing the admin token costs a window per few tries.
 * The wall clock, not the simulator's: a virtual clock must not lift it.
 * Memory stays bounded: at most `maxAddresses` are tracked, the least
 * recently failing forgotten first.
 */
import { type AdminThrottleOptions, adminThrottleSettings } from "./admin-throttle-settings.ts";

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
