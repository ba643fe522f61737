/**
 * The safety options `compare` shares with `contract`, for a comparison with
 * a real deployment: `--budget` (the plan cut to what it can pay for before
 * anything is sent), `--accounts` (the only recipients, written as the
 * provider's domain accepts them), `--other-token` (a second customer, for
 * one isolation rule) and `--request-timeout`.
 */
import type { CompiledProfile } from "../contract/provider-profile/compile.ts";
import { inDomain, type Recipient, toRecipient } from "../harness/accounts.ts";
import type { SimulatorOptions } from "../simulator/simulator-options.ts";
import { withinBudget } from "./budget-plan.ts";
import { isolationAmount, isolationRule } from "./isolation.ts";
import type { ObserveOptions } from "./observe.ts";
import type { Step } from "./plan.ts";
import type { RuleResult } from "./rules.ts";

export interface CompareSafety {
  /** Most KES the comparison may ask the target for, replays included. */
  readonly budget?: number | undefined;
  /** The only recipient numbers orders may go to. */
  readonly accounts?: readonly string[] | undefined;
  /** A second customer's token: its view of the first customer's order is compared. */
  readonly otherToken?: string | undefined;
  readonly requestTimeoutMs?: number | undefined;
}

export interface Spending {
  readonly budget: number;
  /** The most the runs sent could have cost, KES, had every order and replay been charged. */
  readonly maxSpend: number;
  readonly runsPlanned: number;
}

/** The reference simulator's second customer, who answers for `--other-token` on its side. */
const REFERENCE_OTHER_TOKEN = "compare-reference-other-token";

/** Extra customers of the reference simulator: the second customer when `--other-token` is given. */
export function referenceCustomers(
  reference: SimulatorOptions | undefined,
  safety: CompareSafety | undefined,
): Pick<SimulatorOptions, "customers"> {
  if (safety?.otherToken === undefined) return {};
  const other = { id: "compare-other-customer", token: REFERENCE_OTHER_TOKEN, balance: 1000 };
  return { customers: [...(reference?.customers ?? []), other] };
}

export type SafeRuns = {
  readonly runs: readonly (readonly Step[])[];
  readonly accounts: readonly string[] | undefined;
  readonly spending: Spending | undefined;
};

/**
 * The plan within the budget and the recipients within the provider's
 * domain; throws, before anything is sent, when the budget covers no run.
 */
export function safeRuns(
  planned: readonly (readonly Step[])[],
  profile: CompiledProfile,
  safety: CompareSafety | undefined,
): SafeRuns {
  const accounts =
    safety?.accounts === undefined
      ? undefined
      : inDomain(
          safety.accounts.map((account) => toRecipient(account)).filter((r): r is Recipient => r !== undefined),
          profile.domain,
        ).map((recipient) => recipient.account);
  if (safety?.budget === undefined) return { runs: planned, accounts, spending: undefined };
  const reserved = safety.otherToken === undefined ? 0 : isolationAmount({ profile });
  const { runs, maxSpend } = withinBudget(planned, safety.budget, reserved);
  if (runs.length === 0) throw new Error(`--budget KES ${safety.budget} does not cover one run of the plan`);
  return { runs, accounts, spending: { budget: safety.budget, maxSpend, runsPlanned: planned.length } };
}

/** Rules that only a safety option makes possible (today: the second customer's view). */
export async function safetyRules(
  simulator: ObserveOptions,
  target: ObserveOptions,
  safety: CompareSafety | undefined,
): Promise<RuleResult[]> {
  if (safety?.otherToken === undefined) return [];
  return [
    await isolationRule(
      { observe: simulator, otherToken: REFERENCE_OTHER_TOKEN },
      { observe: target, otherToken: safety.otherToken },
    ),
  ];
}
