/**
 * Turns a validated scenario definition into what the engine runs: matchers
 * with their regular expressions built once, and effect templates whose
 * delays are sampled per request.
 */

import { parseKenyanMobile } from "../contract/operators.ts";
import { REVERSED_STATUS, SUCCESS_STATUS } from "../contract/status-codes.ts";
import type { Timing } from "../domain/timing.ts";
import type { HttpFailure } from "../domain/scenario-engine.ts";
import { createRuleMatcher, type FactsMatcher } from "./matcher.ts";
import type { RuleEffects, ScenarioDefinition } from "./schema.ts";

/** One planned step; `after` undefined means the simulator's default outcome delay. */
export interface StepTemplate {
  readonly after: Timing | undefined;
  readonly status: number;
  readonly message?: string;
}

export interface WebhookTemplate {
  readonly delay?: Timing;
  readonly duplicates?: number;
  readonly staleAfterFinal?: boolean;
  readonly badSignature?: boolean;
  readonly drop?: boolean;
  readonly beforeResponse?: boolean;
}

export interface EffectTemplate {
  readonly latency?: Timing;
  readonly beforeCommit?: HttpFailure;
  readonly afterCommit?: HttpFailure;
  /** An empty list keeps the order pending (stuckPending). */
  readonly plan?: readonly StepTemplate[];
  readonly forceInsufficient?: boolean;
  readonly webhook: WebhookTemplate;
}

export type AttemptSelector =
  { readonly kind: "nth"; readonly n: number } | { readonly kind: "first"; readonly n: number };

export interface CompiledRule {
  /** `scenario/rule`, as listed in `fired` and the journal. */
  readonly id: string;
  readonly matches: FactsMatcher;
  readonly attempt?: AttemptSelector;
  readonly probability?: number;
  readonly effects: EffectTemplate;
}

export interface CompiledScenario {
  readonly name: string;
  readonly seed?: number;
  readonly rules: readonly CompiledRule[];
  /**
   * When every rule names one exact account, the E.164 accounts it can
   * touch: the engine skips the scenario for any other account without
   * running a matcher (the magic accounts are checked on every order).
   */
  readonly onlyAccounts?: ReadonlySet<string>;
}

function failure(error: RuleEffects["httpError"], drop: RuleEffects["dropResponse"], when: string) {
  if (error !== undefined && error.when === when) {
    const failure: HttpFailure =
      error.retryAfter === undefined
        ? { kind: "error", status: error.status }
        : { kind: "error", status: error.status, retryAfterSeconds: error.retryAfter };
    return failure;
  }
  if (drop !== undefined && drop.when === when) return { kind: "drop" } as const;
  return undefined;
}

function compilePlan(effects: RuleEffects): readonly StepTemplate[] | undefined {
  if (effects.stuckPending === true) return [];
  let steps: StepTemplate[] | undefined;
  if (effects.outcome !== undefined) {
    const { status, message, after } = effects.outcome;
    steps = [{ after, status, ...(message ? { message } : {}) }];
  } else if (effects.path !== undefined) {
    steps = effects.path.map(({ status, message, after }) => ({
      after,
      status,
      ...(message ? { message } : {}),
    }));
  }
  if (effects.reverseAfter !== undefined) {
    steps ??= [{ after: undefined, status: SUCCESS_STATUS }];
    steps.push({ after: effects.reverseAfter, status: REVERSED_STATUS });
  }
  return steps;
}

function compileEffects(effects: RuleEffects): EffectTemplate {
  const webhook = effects.webhook;
  const beforeCommit = failure(effects.httpError, effects.dropResponse, "before_commit");
  const afterCommit = failure(effects.httpError, effects.dropResponse, "after_commit");
  const plan = compilePlan(effects);
  return {
    ...(effects.latency !== undefined ? { latency: effects.latency } : {}),
    ...(beforeCommit !== undefined ? { beforeCommit } : {}),
    ...(afterCommit !== undefined ? { afterCommit } : {}),
    ...(plan !== undefined ? { plan } : {}),
    ...(effects.insufficientBalance === true ? { forceInsufficient: true } : {}),
    webhook: {
      ...(webhook?.delay !== undefined ? { delay: webhook.delay } : {}),
      ...(webhook?.duplicate !== undefined ? { duplicates: webhook.duplicate } : {}),
      ...(webhook?.outOfOrder === true ? { staleAfterFinal: true } : {}),
      ...(webhook?.badSignature === true ? { badSignature: true } : {}),
      ...(webhook?.drop === true ? { drop: true } : {}),
      ...(webhook?.beforeResponse === true ? { beforeResponse: true } : {}),
    },
  };
}

export function compileScenario(definition: ScenarioDefinition): CompiledScenario {
  const rules = definition.rules.map((rule): CompiledRule => {
    const match = rule.match;
    const attempt: AttemptSelector | undefined =
      match?.attempt !== undefined
        ? { kind: "nth", n: match.attempt }
        : match?.firstN !== undefined
          ? { kind: "first", n: match.firstN }
          : undefined;
    return {
      id: `${definition.name}/${rule.name}`,
      matches: createRuleMatcher(match),
      ...(attempt !== undefined ? { attempt } : {}),
      ...(match?.probability !== undefined ? { probability: match.probability } : {}),
      effects: compileEffects(rule.effects),
    };
  });
  const exact = definition.rules.map((rule) => {
    const account = rule.match?.account;
    return account !== undefined && "exact" in account ? parseKenyanMobile(account.exact)?.e164 : undefined;
  });
  const onlyAccounts = exact.every((account) => account !== undefined) ? new Set(exact as string[]) : undefined;
  return {
    name: definition.name,
    ...(definition.seed !== undefined ? { seed: definition.seed } : {}),
    rules,
    ...(onlyAccounts !== undefined ? { onlyAccounts } : {}),
  };
}
