/**
 * The order generators' settings, normalised once: their defaults in one
 * table, and one frozen settings object the valid and invalid order
 * generators read as it is.
 */
import { SERVICES, type Service } from "./operators.ts";
import { DEFAULT_ORDER_LIMITS, type OrderLimits } from "./public-schemas.ts";

export interface ValidOrderOptions {
  readonly limits?: OrderLimits;
  /** Only these operators (default: all five). */
  readonly services?: readonly Service[];
  /** Only these recipients, as written (e.g. a real deployment's allow-list); default: generated. */
  readonly accounts?: readonly string[];
  /** Wallet shortcodes to pick from (sometimes omitted); default: never sent. */
  readonly shortcodes?: readonly string[];
  /** `always`, `never` or `sometimes` (default) send a body `idempotencyKey`. */
  readonly bodyKey?: "always" | "never" | "sometimes";
}

const ORDER_ARBITRARY_DEFAULTS = Object.freeze({
  limits: DEFAULT_ORDER_LIMITS,
  services: SERVICES,
  shortcodes: Object.freeze([]) as readonly string[],
  bodyKey: "sometimes",
} as const);

/**
 * @example
 * orderArbitrarySettings({ bodyKey: "never" }).services; // ["safaricom", "airtel", "telkom", "jtl", "equitel"]
 */
export function orderArbitrarySettings(options: ValidOrderOptions) {
  return Object.freeze({
    limits: options.limits ?? ORDER_ARBITRARY_DEFAULTS.limits,
    services: options.services ?? ORDER_ARBITRARY_DEFAULTS.services,
    /** Undefined: recipients are generated. */
    accounts: options.accounts,
    shortcodes: options.shortcodes ?? ORDER_ARBITRARY_DEFAULTS.shortcodes,
    bodyKey: options.bodyKey ?? ORDER_ARBITRARY_DEFAULTS.bodyKey,
  });
}

export type OrderArbitrarySettings = ReturnType<typeof orderArbitrarySettings>;
