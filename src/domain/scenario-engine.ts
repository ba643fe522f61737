/**
 * The scenario engine port: what a scenario does to one send-airtime
 * request, resolved from the rules that matched it. The scenarios plugin
 * implements it; the HTTP pipeline applies the response effects, the domain
 * takes the outcome plan, the webhook dispatcher reads the webhook faults.
 * It lives in the domain so that neither side imports the other.
 */
import type { ErrorCode } from "../contract/error-codes.ts";
import type { Service } from "../contract/operators.ts";
import type { WebhookFaults } from "./faults.ts";
import type { OutcomePlan } from "./model.ts";

/** The facts about a send-airtime request that rules match on. */
export interface RequestFacts {
  readonly customerId: string;
  /** E.164 when the account parsed, else the raw value. */
  readonly account: string;
  /** Explicit or detected service, when known. */
  readonly service?: Service;
  readonly amountCents: number;
  readonly reference: string;
  readonly idempotencyKey?: string;
  /** Lower-cased header names. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The `X-Sim-Scenario` header, when sent. */
  readonly requestedScenario?: string;
}

export type HttpFailure =
  | { readonly kind: "error"; readonly status: 429 | 500 | 502 | 503; readonly retryAfterSeconds?: number }
  /** Destroy the connection without an answer; the client sees a network error. */
  | { readonly kind: "drop" };

export interface ResolvedEffects {
  /** `scenario/rule` names of every rule that fired, for the journal. */
  readonly fired: readonly string[];
  /** Added before the response is written. */
  readonly latencyMs?: number;
  /** Answer with this failure and do not commit the order. */
  readonly beforeCommit?: HttpFailure;
  /** Commit the order, then answer with this failure instead of the order. */
  readonly afterCommit?: HttpFailure;
  readonly plan?: OutcomePlan;
  readonly forceInsufficient?: boolean;
  readonly webhookFaults?: WebhookFaults;
  /**
   * Refuse the request with this problem before anything else happens
   * (e.g. an `X-Sim-Scenario` naming no loaded scenario: `unknown_scenario`).
   */
  readonly rejection?: { readonly code: ErrorCode; readonly detail: string };
}

export const NO_EFFECTS: ResolvedEffects = { fired: [] };

export interface ScenarioEngine {
  /** Resolves the effects for one request; advances the rules' attempt counters. */
  evaluate(facts: RequestFacts): Promise<ResolvedEffects>;
}

/**
 * Attempt counts of scenario rules kept outside the process (on a Redis
 * store), so instances sharing the store count one customer's attempts
 * together: the Nth attempt across instances is the one a rule for the Nth
 * matches.
 */
export interface SharedAttemptCounters {
  /** One more attempt of a customer under `counter` (a rule of one activation); resolves to the count, this one included. */
  increment(customerId: string, counter: string, attempt: string): Promise<number>;
  /** Forgets the counts of one customer, or of every customer. */
  forget(customerId?: string): Promise<void>;
}
