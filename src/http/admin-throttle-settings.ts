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
export function adminThrottleSettings(options: AdminThrottleOptions) {
  return Object.freeze({
    maxFailures: options.maxFailures ?? ADMIN_THROTTLE_DEFAULTS.maxFailures,
    windowMs: options.windowMs ?? ADMIN_THROTTLE_DEFAULTS.windowMs,
    maxAddresses: options.maxAddresses ?? ADMIN_THROTTLE_DEFAULTS.maxAddresses,
    now: options.now ?? (() => Date.now()),
  });
}
