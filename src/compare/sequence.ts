/**
 * The sequence behind an answer divergence: both sides were sent the very
 * same planned steps in the same order, so the first step of the rule's
 * kind that the two sides answered differently, with the steps of its run
 * before it, replays the difference by hand (curl lines for both sides).
 */
import { CONDITION_RULES } from "./judge.ts";
import type { StepRecord } from "./observe.ts";
import type { StepKind } from "./plan.ts";
import type { RuleResult } from "./rules.ts";
import type { CompareReport } from "./run-compare.ts";

export interface SequenceStep {
  readonly kind: string;
  readonly simulator: { readonly outcome: string; readonly curl: string };
  readonly target: { readonly outcome: string; readonly curl: string };
}

function kindOfRule(result: RuleResult): StepKind | undefined {
  const kinds = Object.keys(CONDITION_RULES) as StepKind[];
  return kinds.find((kind) => CONDITION_RULES[kind].rule === result.rule);
}

function firstDifference(simulator: readonly StepRecord[], target: readonly StepRecord[], kind: StepKind): number {
  return simulator.findIndex((step, index) => {
    const other = target[index];
    return step.kind === kind && other?.kind === kind && other.outcome !== step.outcome;
  });
}

/**
 * @example
 * divergentSequence(report, result); // [{ kind: "send", … }, { kind: "invalid-amount", simulator: { outcome: "refused 400 …" }, … }]
 */
export function divergentSequence(report: CompareReport, result: RuleResult): readonly SequenceStep[] | undefined {
  const kind = result.agrees ? undefined : kindOfRule(result);
  if (kind === undefined) return undefined;
  const simulatorSteps = report.simulator.steps;
  const targetSteps = report.targetSide.steps;
  const last = firstDifference(simulatorSteps, targetSteps, kind);
  if (last < 0) return undefined;
  const run = simulatorSteps[last]?.run;
  const sequence: SequenceStep[] = [];
  for (let index = 0; index <= last; index++) {
    const simulator = simulatorSteps[index] as StepRecord;
    const target = targetSteps[index] as StepRecord;
    if (simulator.run !== run || simulator.outcome.startsWith("skipped")) continue;
    sequence.push({
      kind: simulator.kind,
      simulator: { outcome: simulator.outcome, curl: simulator.curl },
      target: { outcome: target.outcome, curl: target.curl },
    });
  }
  return sequence;
}
