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
import { type ObserveOptions, accountOf, call, curlLine, lookupOutcome, type Request } from "./observe.ts";
import type { Step } from "./plan.ts";
import { type RuleResult, type AnswerEvidence, compareAnswers } from "./rules.ts";
import { randomUUID } from "node:crypto";

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

// `--budget AMOUNT`: the planned runs cut to those whose worst-case spend
// fits, before anything is sent. Both sides then get the same, shorter
// plan, so the comparison stays like for like, and the target can never be
// asked for more than the budget: every send counts at its amount, and
// every replay as if a broken target charged it again (at the largest
// amount sent earlier in its run, plus one for a changed payload).

interface BudgetedPlan {
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
function withinBudget(runs: readonly (readonly Step[])[], budget: number, reserved = 0): BudgetedPlan {
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

// `--other-token TOKEN`: what a second customer is told about the first
// customer's order. One order is placed with the main token, then looked up
// with the other; the answer is classed like any lookup, so the two sides
// are compared by meaning (a 404 and its code, say), never by the ids in it.

export const ISOLATION_RULE = "another customer's order: HTTP status and error code";

interface IsolationSide {
  readonly observe: Omit<ObserveOptions, "runs" | "settleMs">;
  readonly otherToken: string;
}

/** The probe's order: the smallest amount the provider accepts, so `--budget` reserves little for it. */
function isolationAmount(options: Pick<ObserveOptions, "profile">): number {
  return Math.ceil(options.profile.domain.minAmount);
}

/** Places one order as the main customer and looks it up as the other. */
async function probe(side: IsolationSide): Promise<AnswerEvidence> {
  const options = side.observe;
  const reference = `cmp-iso-${randomUUID().slice(0, 8)}`;
  const account = accountOf(options, 0);
  const order: Request = {
    method: "POST",
    path: "/v1/airtime",
    token: true,
    key: `k-${reference}`,
    body: { account, amount: isolationAmount(options), currency: "KES", reference },
  };
  const placed = await call(options, order);
  if (placed.status !== 200) return { answers: { [`skipped: the order was refused (${placed.status})`]: 1 } };
  const lookup: Request = { method: "GET", path: `/v1/airtime/${reference}`, token: true };
  const answer = await call({ ...options, token: side.otherToken }, lookup);
  return {
    answers: { [lookupOutcome(options.profile, answer)]: 1 },
    example: curlLine(options.baseUrl, lookup).replace("$TOKEN", "$OTHER_TOKEN"),
  };
}

/**
 * @example
 * await isolationRule(simulatorSide, targetSide); // agrees when both hide the order the same way
 */
async function isolationRule(simulator: IsolationSide, target: IsolationSide): Promise<RuleResult> {
  const [sim, tgt] = await Promise.all([probe(simulator), probe(target)]);
  const judged = (evidence: AnswerEvidence): AnswerEvidence =>
    Object.keys(evidence.answers).some((answer) => answer.startsWith("skipped")) ? { answers: {} } : evidence;
  const result = compareAnswers(ISOLATION_RULE, "lookup", judged(sim), judged(tgt));
  return { ...result, simulator: sim, target: tgt };
}
