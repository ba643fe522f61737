/**
 * `compare --other-token TOKEN`: what a second customer is told about the
 * first customer's order. One order is placed with the main token, then
 * looked up with the other; the answer is classed like any lookup, so the
 * two sides are compared by meaning (a 404 and its code, say), never by the
 * ids in it.
 */
import { randomUUID } from "node:crypto";
import { accountOf, call, curlLine, lookupOutcome, type ObserveOptions, type Request } from "./observe.ts";
import { type AnswerEvidence, compareAnswers, type RuleResult } from "./rules.ts";

export const ISOLATION_RULE = "another customer's order: HTTP status and error code";

export interface IsolationSide {
  readonly observe: Omit<ObserveOptions, "runs" | "settleMs">;
  readonly otherToken: string;
}

/** The probe's order: the smallest amount the provider accepts, so `--budget` reserves little for it. */
export function isolationAmount(options: Pick<ObserveOptions, "profile">): number {
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
export async function isolationRule(simulator: IsolationSide, target: IsolationSide): Promise<RuleResult> {
  const [sim, tgt] = await Promise.all([probe(simulator), probe(target)]);
  const judged = (evidence: AnswerEvidence): AnswerEvidence =>
    Object.keys(evidence.answers).some((answer) => answer.startsWith("skipped")) ? { answers: {} } : evidence;
  const result = compareAnswers(ISOLATION_RULE, "lookup", judged(sim), judged(tgt));
  return { ...result, simulator: sim, target: tgt };
}
