/**
 * The scenario engine: which scenarios are loaded and active, and what they
 * do to one send-airtime request.
 *
 * Evaluation order (documented in docs/scenarios.md, "Evaluation order"):
 *  1. the scenarios named in the request's `X-Sim-Scenario` header, in the order written;
 *  2. the scenarios active for the request's customer, in activation order;
 *  3. the scenarios active globally, in activation order;
 *  4. the magic test accounts (unless disabled).
 * Within a scenario, rules run top to bottom. Every matching rule is listed
 * in `fired`; the first rule that sets an effect field wins that field
 * (latency, the before/after-commit failure, the outcome plan, insufficient
 * balance, and each webhook fault on its own).
 *
 * Each activation has its own state — a PRNG seeded from the scenario's seed
 * (or the engine seed and the scenario's name) and its attempt counters — so
 * a scenario active for one customer, or sent in one customer's header,
 * never changes what another customer's requests get.
 */

import { didYouMean } from "../contract/did-you-mean.ts";
import type { WebhookFaults } from "../domain/faults.ts";
import type { PlannedTransition } from "../domain/model.ts";
import type { Random } from "../domain/ports.ts";
import type { Timing } from "../domain/timing.ts";
import { sampleDelay } from "../domain/timing.ts";
import { type CompiledRule, type CompiledScenario, compileScenario, type EffectTemplate } from "./compile.ts";
import type {
  HttpFailure,
  RequestFacts,
  ResolvedEffects,
  ScenarioEngine,
  SharedAttemptCounters,
} from "../domain/scenario-engine.ts";
import { type ActivationStates, createActivationStates, type ScenarioState } from "./activation-states.ts";
import type { LoadedScenario } from "./load.ts";
import { MAGIC_ACCOUNTS_SCENARIO, MAGIC_ACCOUNTS_SCENARIO_NAME } from "./magic-accounts.ts";
import { type ScenarioEngineOptions, scenarioEngineSettings } from "./scenario-settings.ts";

export interface ActivationScope {
  /** Active for this customer only; absent: for every customer. */
  readonly customer?: string;
}

export type ActivationOutcome =
  | { readonly kind: "activated" }
  | { readonly kind: "already_active" }
  | { readonly kind: "unknown_scenario"; readonly name: string };

export type DeactivationOutcome = { readonly kind: "deactivated" } | { readonly kind: "not_active" };

export type AddOutcome =
  | { readonly kind: "added"; readonly replaced: readonly string[] }
  | {
      readonly kind: "reserved_name";
      readonly name: string;
    };

export interface ScenarioSummary {
  readonly name: string;
  readonly description: string;
  readonly rules: readonly string[];
  readonly source: string;
  readonly seed?: number;
}

export interface ScenarioListing {
  readonly loaded: readonly ScenarioSummary[];
  readonly active: {
    readonly global: readonly string[];
    readonly customers: Readonly<Record<string, readonly string[]>>;
  };
  readonly magicAccounts: boolean;
}

/** A `ScenarioEngine` plus the controls the CLI, the config and the admin API use. */
export interface ManagedScenarioEngine extends ScenarioEngine {
  /** Adds (or replaces, by name) validated scenarios, all or none; replaced scenarios start afresh. */
  add(scenarios: readonly LoadedScenario[]): AddOutcome;
  get(name: string): LoadedScenario | undefined;
  activate(name: string, scope?: ActivationScope): ActivationOutcome;
  deactivate(name: string, scope?: ActivationScope): DeactivationOutcome;
  /** Deactivates a scenario everywhere and forgets it; false when none of that name is loaded. */
  remove(name: string): boolean;
  list(): ScenarioListing;
  /**
   * Forgets attempt counters and restarts generators: all of them (a full
   * simulator reset), or only what one customer's traffic built up. This
   * process's state is forgotten at once; shared counters when it resolves.
   */
  resetState(customerId?: string): Promise<void>;
}

/** FNV-1a, to turn a scenario's name into a seed. */
export function hashSeed(text: string, base: number): number {
  let hash = (base ^ 0x811c9dc5) >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** Collects effect fields; the first rule to set a field keeps it. */
class EffectsAccumulator {
  readonly fired: string[] = [];
  latencyMs: number | undefined;
  beforeCommit: HttpFailure | undefined;
  afterCommit: HttpFailure | undefined;
  plan: PlannedTransition[] | undefined;
  forceInsufficient: boolean | undefined;
  readonly webhook: { -readonly [K in keyof WebhookFaults]?: WebhookFaults[K] | undefined } = {};

  constructor(private readonly defaultOutcomeTiming: Timing) {}

  apply(rule: CompiledRule, random: Random): void {
    this.fired.push(rule.id);
    const effects: EffectTemplate = rule.effects;
    if (this.latencyMs === undefined && effects.latency !== undefined) {
      this.latencyMs = sampleDelay(effects.latency, random);
    }
    this.beforeCommit ??= effects.beforeCommit;
    this.afterCommit ??= effects.afterCommit;
    if (this.plan === undefined && effects.plan !== undefined) {
      this.plan = effects.plan.map((step) => ({
        afterMs: sampleDelay(step.after ?? this.defaultOutcomeTiming, random),
        status: step.status,
        ...(step.message === undefined ? {} : { message: step.message }),
      }));
    }
    this.forceInsufficient ??= effects.forceInsufficient;
    const webhook = effects.webhook;
    if (this.webhook.delayMs === undefined && webhook.delay !== undefined) {
      this.webhook.delayMs = sampleDelay(webhook.delay, random);
    }
    this.webhook.duplicates ??= webhook.duplicates;
    this.webhook.staleAfterFinal ??= webhook.staleAfterFinal;
    this.webhook.badSignature ??= webhook.badSignature;
    this.webhook.drop ??= webhook.drop;
    this.webhook.beforeResponse ??= webhook.beforeResponse;
  }

  result(): ResolvedEffects {
    // Every effect comes from a rule that fired: none fired, nothing to collect (most requests).
    if (this.fired.length === 0) return { fired: this.fired };
    const webhook = Object.fromEntries(Object.entries(this.webhook).filter(([, value]) => value !== undefined));
    return {
      fired: this.fired,
      ...(this.latencyMs === undefined ? {} : { latencyMs: this.latencyMs }),
      ...(this.beforeCommit === undefined ? {} : { beforeCommit: this.beforeCommit }),
      ...(this.afterCommit === undefined ? {} : { afterCommit: this.afterCommit }),
      ...(this.plan === undefined ? {} : { plan: { steps: this.plan } }),
      ...(this.forceInsufficient === undefined ? {} : { forceInsufficient: this.forceInsufficient }),
      ...(Object.keys(webhook).length === 0 ? {} : { webhookFaults: webhook as WebhookFaults }),
    };
  }
}

const NO_NAMES: readonly string[] = Object.freeze([]);

/** The names in an `X-Sim-Scenario` header: one name, or several separated by commas. */
function parseRequestedScenarios(header: string | undefined): readonly string[] {
  if (header === undefined) return NO_NAMES;
  const names = header
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  return [...new Set(names)];
}

/**
 * @example
 * const engine = createScenarioEngine({ seed: 7, scenarios: loaded });
 * engine.activate("flaky-gateway", { customer: "acme" });
 * const effects = await engine.evaluate(facts); // { fired: ["flaky-gateway/503-twice"], beforeCommit: … }
 */
export function createScenarioEngine(options: ScenarioEngineOptions = {}): ManagedScenarioEngine {
  const settings = scenarioEngineSettings(options);
  const engineSeed = settings.seed;
  const parts: EngineParts = {
    loaded: new Map(),
    global: [],
    perCustomer: new Map(),
    states: createActivationStates({
      seedOf: (scenario) => scenario.seed ?? hashSeed(scenario.name, engineSeed),
      maxTrackedKeys: settings.maxTrackedKeys,
    }),
    counters: settings.counters,
    scopeOf: settings.stateScope,
    magic: settings.magicAccounts ? compileScenario(MAGIC_ACCOUNTS_SCENARIO.definition) : undefined,
    defaultOutcomeTiming: settings.defaultOutcomeTiming,
  };
  const { loaded, global, perCustomer, states, scopeOf } = parts;

  const engine: ManagedScenarioEngine = {
    evaluate: (facts) => evaluate(parts, facts),

    add(scenarios) {
      const reserved = scenarios.find((entry) => entry.definition.name === MAGIC_ACCOUNTS_SCENARIO_NAME);
      if (reserved !== undefined) return { kind: "reserved_name", name: reserved.definition.name };
      const replaced: string[] = [];
      for (const scenario of scenarios) {
        const { name } = scenario.definition;
        if (loaded.has(name)) replaced.push(name);
        loaded.set(name, { scenario, compiled: compileScenario(scenario.definition) });
        states.forget(name);
      }
      return { kind: "added", replaced };
    },

    get(name) {
      return loaded.get(name)?.scenario;
    },

    activate(name, scope = {}) {
      if (!loaded.has(name)) return { kind: "unknown_scenario", name };
      const list = scope.customer === undefined ? global : (perCustomer.get(scope.customer) ?? []);
      if (list.includes(name)) return { kind: "already_active" };
      list.push(name);
      if (scope.customer !== undefined) perCustomer.set(scope.customer, list);
      // An activation starts from the beginning: fresh counters and generator.
      states.forget(name, scope.customer === undefined ? "global" : scopeOf("customer", scope.customer));
      return { kind: "activated" };
    },

    deactivate(name, scope = {}) {
      const list = scope.customer === undefined ? global : perCustomer.get(scope.customer);
      const index = list?.indexOf(name) ?? -1;
      if (list === undefined || index < 0) return { kind: "not_active" };
      list.splice(index, 1);
      if (scope.customer !== undefined && list.length === 0) perCustomer.delete(scope.customer);
      return { kind: "deactivated" };
    },

    remove(name) {
      if (!loaded.delete(name)) return false;
      for (const list of [global, ...perCustomer.values()]) {
        const index = list.indexOf(name);
        if (index >= 0) list.splice(index, 1);
      }
      for (const [customer, list] of perCustomer) if (list.length === 0) perCustomer.delete(customer);
      states.forget(name);
      return true;
    },

    list: () => listing(parts),

    async resetState(customerId) {
      const shared = parts.counters?.forget(customerId);
      states.reset(
        customerId === undefined
          ? undefined
          : { id: customerId, scopes: [scopeOf("request", customerId), scopeOf("customer", customerId)] },
      );
      return shared;
    },
  };

  if (settings.scenarios !== undefined) {
    const added = engine.add(settings.scenarios);
    if (added.kind === "reserved_name") {
      throw new Error(`the scenario name '${added.name}' is reserved for the magic test accounts`);
    }
  }
  return engine;
}

/**
 * The engine's state in one object, so evaluating and listing are named
 * functions rather than closures inside the factory: what is loaded, where
 * it is active (in activation order), and each activation's own state.
 */
interface EngineParts {
  readonly loaded: Map<string, { readonly scenario: LoadedScenario; readonly compiled: CompiledScenario }>;
  readonly global: string[];
  readonly perCustomer: Map<string, string[]>;
  readonly states: ActivationStates;
  readonly counters: SharedAttemptCounters | undefined;
  readonly scopeOf: (kind: "request" | "customer", customerId: string) => string;
  /** The magic test accounts' scenario; absent when they are off. */
  readonly magic: CompiledScenario | undefined;
  readonly defaultOutcomeTiming: Timing;
}

/** One request through every scenario that applies to it, in the evaluation order the module comment gives. */
async function evaluate(parts: EngineParts, facts: RequestFacts): Promise<ResolvedEffects> {
  const { loaded, states, scopeOf, magic } = parts;
  const requested = parseRequestedScenarios(facts.requestedScenario);
  const unknown = requested.find((name) => !loaded.has(name));
  if (unknown !== undefined) {
    return {
      fired: [],
      rejection: {
        code: "unknown_scenario",
        detail:
          `X-Sim-Scenario names '${unknown}', which is not loaded${didYouMean(unknown, loaded.keys())}; ` +
          "GET /_sim/scenarios lists the loaded scenarios.",
      },
    };
  }
  const into = new EffectsAccumulator(parts.defaultOutcomeTiming);
  // Most requests name no scenario and meet none active: each list is looked at, not walked.
  if (requested.length > 0) await runEach(parts, requested, scopeOf("request", facts.customerId), facts, into);
  const own = parts.perCustomer.get(facts.customerId);
  if (own !== undefined) await runEach(parts, own, scopeOf("customer", facts.customerId), facts, into);
  if (parts.global.length > 0) await runEach(parts, parts.global, "global", facts, into);
  if (magic !== undefined && appliesTo(magic, facts)) {
    await runScenario(parts, magic, states.stateOf("magic", magic), facts, into);
  }
  return into.result();
}

function listing({ loaded, global, perCustomer, magic }: EngineParts): ScenarioListing {
  return {
    loaded: [...loaded.values()]
      .map(({ scenario }) => ({
        name: scenario.definition.name,
        description: scenario.definition.description,
        rules: scenario.definition.rules.map((rule) => rule.name),
        source: scenario.source,
        ...(scenario.definition.seed === undefined ? {} : { seed: scenario.definition.seed }),
      }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    active: {
      global: [...global],
      customers: Object.fromEntries([...perCustomer].map(([customer, names]) => [customer, [...names]])),
    },
    magicAccounts: magic !== undefined,
  };
}

/** The loaded scenarios of `names` against a request, in order, each in its activation's state for `scope`. */
async function runEach(
  parts: EngineParts,
  names: readonly string[],
  scope: string,
  facts: RequestFacts,
  into: EffectsAccumulator,
): Promise<void> {
  for (const name of names) {
    const entry = parts.loaded.get(name);
    if (entry !== undefined && appliesTo(entry.compiled, facts)) {
      await runScenario(parts, entry.compiled, parts.states.stateOf(scope, entry.compiled), facts, into);
    }
  }
}

/** False when a scenario only names accounts and this request's is none of them: its rules cannot match. */
function appliesTo(scenario: CompiledScenario, facts: RequestFacts): boolean {
  return scenario.onlyAccounts === undefined || scenario.onlyAccounts.has(facts.account);
}

/**
 * Runs one scenario's rules against a request that it applies to, top to
 * bottom, into the effects: attempts are counted in the activation's own state, or in the
 * counters shared with other instances when there are some.
 */
async function runScenario(
  counting: Pick<EngineParts, "states" | "counters">,
  scenario: CompiledScenario,
  state: ScenarioState,
  facts: RequestFacts,
  into: EffectsAccumulator,
): Promise<void> {
  // Attempts are counted per customer and idempotency key, or per reference without a key.
  const attempt = facts.idempotencyKey === undefined ? `r:${facts.reference}` : `k:${facts.idempotencyKey}`;
  const attemptKey = `${facts.customerId}\u0000${attempt}`;
  for (const [index, rule] of scenario.rules.entries()) {
    if (!rule.matches(facts)) continue;
    if (rule.attempt !== undefined) {
      const count =
        counting.counters === undefined
          ? counting.states.bump(state, index, attemptKey)
          : await counting.counters.increment(facts.customerId, `${state.key}\u0000${index}`, attempt);
      if (rule.attempt.kind === "nth" ? count !== rule.attempt.n : count > rule.attempt.n) continue;
    }
    if (rule.probability !== undefined && !(state.random.next() < rule.probability)) continue;
    into.apply(rule, state.random);
  }
}
