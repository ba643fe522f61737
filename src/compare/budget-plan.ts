/**
 * `compare --budget AMOUNT`: the planned runs cut to those whose worst-case
 * spend fits, before anything is sent. Both sides then get the same, shorter
 * plan, so the comparison stays like for like, and the target can never be
 * asked for more than the budget: every send counts at its amount, and every
 * replay as if a broken target charged it again (at the largest amount sent
 * earlier in its run, plus one for a changed payload).
 */
import type { Step } from "./plan.ts";

export interface BudgetedPlan {
  readonly runs: readonly (readonly Step[])[];
  /** The most the kept runs can spend, KES, if every order and every replay were charged. */
  readonly maxSpend: number;
}

/** The most one run can spend, KES. */
function worstCaseSpend(run: readonly Step[]): number {
  let spend = 0;
  let largest = 0;
  for (const step of run) {
    if (step.kind === "send") {
      spend += step.amount;
      largest = Math.max(largest, step.amount);
    } else if (step.kind === "replay") spend += largest;
    else if (step.kind === "replay-changed" && largest > 0) spend += largest + 1;
  }
  return spend;
}

/**
 * Keeps runs in plan order while their worst-case spend, after `reserved`
 * KES set aside, fits in `budget` KES; stops at the first that does not, so
 * the runs kept are a prefix of the plan and reproducible from the seed.
 *
 * @example
 * withinBudget(planRuns({ seed: 1, runs: 20, minAmount: 10, maxAmount: 1000 }), 500).runs.length; // e.g. 2
 */
export function withinBudget(runs: readonly (readonly Step[])[], budget: number, reserved = 0): BudgetedPlan {
  const kept: (readonly Step[])[] = [];
  let maxSpend = reserved;
  for (const run of runs) {
    const spend = worstCaseSpend(run);
    if (maxSpend + spend > budget) break;
    kept.push(run);
    maxSpend += spend;
  }
  return { runs: kept, maxSpend };
}
