/**
 * The state of each scenario activation: a PRNG and attempt counters per
 * scope (one request's header, one customer, global, the magic accounts)
 * and scenario. Kept apart from the engine because it is the part that
 * makes isolation hold: a scenario active for one customer counts and
 * draws in a state no other customer's requests reach, and a reset forgets
 * exactly one customer's share of it.
 */
import type { Random } from "../domain/ports.ts";
import { createSeededRandom } from "../domain/ids.ts";
import type { CompiledScenario } from "./compile.ts";

/** Separates the scope from the scenario's name in a state's key, and the customer from the attempt in a counter's. */
const SEPARATOR = "\u0000";

export interface ScenarioState {
  /** Scope and scenario name: what names its counters when they are shared. */
  readonly key: string;
  readonly random: Random;
  /** Per rule index: attempt count per customer + idempotency key (or reference). */
  readonly counters: Map<number, Map<string, number>>;
}

export interface ActivationStates {
  /** The state of `scenario` in `scope`, created on first use with the scenario's seed. */
  stateOf(scope: string, scenario: CompiledScenario): ScenarioState;
  /** Forgets a scenario's state in one scope, or in every scope. */
  forget(name: string, scope?: string): void;
  /** Counts one more attempt of `key` for a rule; the oldest key is forgotten beyond the cap. */
  bump(state: ScenarioState, ruleIndex: number, key: string): number;
  /** Forgets every state, or one customer's: the states of its own scopes, and its attempts in shared ones. */
  reset(customer?: { readonly id: string; readonly scopes: readonly string[] }): void;
}

export function createActivationStates(options: {
  /** The seed of a scenario that has none of its own. */
  readonly seedOf: (scenario: CompiledScenario) => number;
  /** Attempt counters kept per rule before the oldest are forgotten. */
  readonly maxTrackedKeys: number;
}): ActivationStates {
  const states = new Map<string, ScenarioState>();
  return {
    stateOf(scope, scenario) {
      const key = `${scope}${SEPARATOR}${scenario.name}`;
      let state = states.get(key);
      if (state === undefined) {
        state = { key, random: createSeededRandom(options.seedOf(scenario)), counters: new Map() };
        states.set(key, state);
      }
      return state;
    },
    forget(name, scope) {
      for (const key of [...states.keys()]) {
        const [keyScope, keyName] = key.split(SEPARATOR);
        if (keyName === name && (scope === undefined || keyScope === scope)) states.delete(key);
      }
    },
    bump(state, ruleIndex, key) {
      let counts = state.counters.get(ruleIndex);
      if (counts === undefined) {
        counts = new Map();
        state.counters.set(ruleIndex, counts);
      }
      const count = (counts.get(key) ?? 0) + 1;
      counts.delete(key);
      counts.set(key, count);
      if (counts.size > options.maxTrackedKeys) {
        const oldest = counts.keys().next().value;
        if (oldest !== undefined) counts.delete(oldest);
      }
      return count;
    },
    reset(customer) {
      if (customer === undefined) {
        states.clear();
        return;
      }
      const own = new Set(customer.scopes);
      const prefix = `${customer.id}${SEPARATOR}`;
      for (const [key, state] of [...states]) {
        if (own.has(key.split(SEPARATOR)[0] as string)) {
          states.delete(key);
          continue;
        }
        for (const counts of state.counters.values()) {
          for (const counted of [...counts.keys()]) if (counted.startsWith(prefix)) counts.delete(counted);
        }
      }
    },
  };
}
