/**
 * The spend budget of a run against a real deployment. Every order request
 * the harness sends reserves its amount first — retries included, since a
 * broken deployment might charge them — so whatever the target does, the
 * amounts the harness asked for never add up to more than the budget.
 */
export interface Budget {
  /** Limit in cents; undefined = unlimited. */
  readonly limitCents: number | undefined;
  /** Cents reserved so far. */
  spentCents(): number;
  canSpend(cents: number): boolean;
  /** Reserves `cents`; false (and nothing reserved) when it would exceed the limit. */
  reserve(cents: number): boolean;
  /** How many times the limit refused a request (a command or a run not made): the budget was the cause. */
  refusals(): number;
}

/**
 * @example
 * const budget = createBudget(100_00); // KES 100
 * if (budget.reserve(50_00)) await placeOrder();
 */
export function createBudget(limitCents: number | undefined): Budget {
  let spent = 0;
  let refused = 0;
  const canSpend = (cents: number) => {
    const fits = limitCents === undefined || spent + Math.max(0, cents) <= limitCents;
    if (!fits) refused++;
    return fits;
  };
  return {
    limitCents,
    refusals: () => refused,
    spentCents: () => spent,
    canSpend,
    reserve(cents) {
      if (!canSpend(cents)) return false;
      spent += Math.max(0, cents);
      return true;
    },
  };
}
