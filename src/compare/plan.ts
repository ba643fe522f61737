/**
 * The sequences `compare` sends: generated once from the seed by fast-check,
 * then sent unchanged to both sides, so the two sides answer the very same
 * requests and any difference in what they answer is theirs, not the
 * generator's.
 */
import fc from "fast-check";

/** What one step asks of the API; `order` picks an earlier order of the run (modulo those placed). */
export type Step =
  | { readonly kind: "send"; readonly amount: number }
  | { readonly kind: "replay"; readonly order: number }
  | { readonly kind: "replay-changed"; readonly order: number }
  | { readonly kind: "lookup"; readonly order: number }
  | { readonly kind: "lookup-unknown" }
  | { readonly kind: "balance" }
  | { readonly kind: "invalid-amount" }
  | { readonly kind: "no-token" };

export type StepKind = Step["kind"];

export interface PlanOptions {
  readonly seed: number;
  readonly runs: number;
  /** Amounts the provider accepts (its profile's domain). */
  readonly minAmount: number;
  readonly maxAmount: number;
}

/** Steps per run: long enough to replay and look up what the run placed. */
const MIN_STEPS = 6;
const MAX_STEPS = 14;

function stepArbitrary(minAmount: number, maxAmount: number): fc.Arbitrary<Step> {
  const order = fc.nat({ max: 50 });
  // Sends weigh most: every other step needs an order, and finals need many.
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc.integer({ min: minAmount, max: maxAmount }).map((amount) => ({ kind: "send", amount }) as const),
    },
    { weight: 2, arbitrary: order.map((index) => ({ kind: "replay", order: index }) as const) },
    { weight: 1, arbitrary: order.map((index) => ({ kind: "replay-changed", order: index }) as const) },
    { weight: 2, arbitrary: order.map((index) => ({ kind: "lookup", order: index }) as const) },
    { weight: 1, arbitrary: fc.constant({ kind: "lookup-unknown" } as const) },
    { weight: 1, arbitrary: fc.constant({ kind: "balance" } as const) },
    { weight: 1, arbitrary: fc.constant({ kind: "invalid-amount" } as const) },
    { weight: 1, arbitrary: fc.constant({ kind: "no-token" } as const) },
  );
}

/**
 * @example
 * planRuns({ seed: 42, runs: 3, minAmount: 10, maxAmount: 1000 }); // 3 step lists, the same for seed 42 every time
 */
export function planRuns(options: PlanOptions): readonly (readonly Step[])[] {
  const maxAmount = Math.max(options.minAmount, Math.min(options.maxAmount, 1000));
  const run = fc.array(stepArbitrary(Math.ceil(options.minAmount), Math.floor(maxAmount)), {
    minLength: MIN_STEPS,
    maxLength: MAX_STEPS,
  });
  return fc.sample(run, { seed: options.seed, numRuns: options.runs });
}
