/** KES has two minor digits; the simulator keeps money as integer cents. */
const MINOR_UNITS = 100;

/** True when `amount` has at most two decimals (10.1 and 10.10 are the same number in JSON). */
export function hasAtMostTwoDecimals(amount: number): boolean {
  const cents = amount * MINOR_UNITS;
  return Math.abs(cents - Math.round(cents)) < 1e-6;
}

export function toCents(amount: number): number {
  return Math.round(amount * MINOR_UNITS);
}

export function fromCents(cents: number): number {
  return cents / MINOR_UNITS;
}
