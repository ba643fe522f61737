/**
 * `runHandlerCheck`: the property. fast-check generates delivery sequences,
 * each runs against the handler with fresh orders from the simulator's truth,
 * and the first sequence that breaks a rule is shrunk to the smallest one
 * that still does. Replays from `{seed, path}`.
 */
import fc from "fast-check";
import { createStateReader, type StateSource, StateReadError } from "./believed-state.ts";
import type { DeliveryDialect, Forgery } from "./delivery-dialect.ts";
import { createHandlerClient } from "./handler-client.ts";
import type { RuleName } from "./judge.ts";
import { type RunOutcome, runSequence, type SequenceContext, type TimelineEntry } from "./run-sequence.ts";
import { type SequencePlan, sequencePlanArbitrary } from "./sequence-model.ts";
import { startSimulatorTruth, type TrueOrder } from "./simulator-truth.ts";
import { createStandardDialect } from "./standard-dialect.ts";

export const DEFAULT_HANDLER_CHECK_RUNS = 50;
export const DEFAULT_HANDLER_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_ORDERS = 3;

export interface HandlerCheckOptions {
  readonly handlerUrl: string;
  readonly secret: string;
  readonly state: StateSource;
  /** Pointer to the status code in the state document. */
  readonly statusPointer: string;
  /** Pointer to a count of side effects applied for the order, when the app keeps one. */
  readonly effectsPointer?: string | undefined;
  /** The handler's reconcile endpoint; with it, some final messages are withheld. */
  readonly reconcileUrl?: string | undefined;
  readonly runs: number;
  readonly seed?: number | undefined;
  readonly path?: string | undefined;
  readonly timeoutMs: number;
  readonly maxOrders: number;
  /** The simulator's port and demo token, for handlers that look orders up. */
  readonly simulatorPort?: number | undefined;
  readonly simulatorToken?: string | undefined;
  /** Every reference starts with it; distinct per run so a long-lived app never mixes two runs. */
  readonly referencePrefix: string;
  readonly dialect?: DeliveryDialect | undefined;
  /** Told where the simulator's lookup listens, once it does. */
  readonly onStart?: ((simulator: { readonly url: string; readonly token: string }) => void) | undefined;
}

export interface HandlerCheckFailure {
  readonly rule: RuleName;
  readonly message: string;
  readonly path: string;
  readonly shrinks: number;
  readonly orders: readonly TrueOrder[];
  readonly timeline: readonly TimelineEntry[];
}

export interface HandlerCheckReport {
  readonly handlerUrl: string;
  readonly dialect: string;
  /** Forgeries the dialect's signing cannot be caught out by, with why: authenticity is not judged for them. */
  readonly notApplicable: Readonly<Partial<Record<Forgery, string>>>;
  readonly simulatorUrl: string;
  readonly seed: number;
  /** Runs executed, shrinking included. */
  readonly runs: number;
  readonly durationMs: number;
  readonly failure?: HandlerCheckFailure;
  /** A setup problem (the state could not be read): no verdict. */
  readonly error?: string;
}

interface RunRecorder {
  readonly predicate: (plan: SequencePlan) => Promise<boolean>;
  executed(): number;
  /** The last run that broke a rule: once shrinking is done, the shrunk counterexample. */
  lastFailure(): RunOutcome | undefined;
  setupError(): string | undefined;
}

function createRunRecorder(context: SequenceContext): RunRecorder {
  let executed = 0;
  let setupError: string | undefined;
  let lastFailure: RunOutcome | undefined;
  return {
    async predicate(plan) {
      // After a setup problem every further run passes at once: there is no verdict to shrink.
      if (setupError !== undefined) return true;
      executed += 1;
      try {
        const outcome = await runSequence(plan, context);
        if (outcome.violation === undefined) return true;
        lastFailure = outcome;
        return false;
      } catch (error) {
        if (!(error instanceof StateReadError)) throw error;
        setupError = error.message;
        return true;
      }
    },
    executed: () => executed,
    lastFailure: () => lastFailure,
    setupError: () => setupError,
  };
}

function verdictOf(
  details: fc.RunDetails<[SequencePlan]>,
  runs: RunRecorder,
): Pick<HandlerCheckReport, "failure" | "error"> {
  const setupError = runs.setupError();
  if (setupError !== undefined) return { error: setupError };
  const last = runs.lastFailure();
  if (!details.failed) return {};
  if (last?.violation === undefined) return { error: `the check itself failed: ${String(details.errorInstance)}` };
  return {
    failure: {
      rule: last.violation.rule,
      message: last.violation.message,
      path: details.counterexamplePath ?? "",
      shrinks: details.numShrinks,
      orders: last.orders,
      timeline: last.timeline,
    },
  };
}

/**
 * @example
 * const report = await runHandlerCheck({
 *   handlerUrl: "http://localhost:3000/webhooks/airtime", secret: "whsec_…",
 *   state: { kind: "url", template: "http://localhost:3000/orders/{reference}" }, statusPointer: "/status",
 *   runs: 50, timeoutMs: 10_000, maxOrders: 3, referencePrefix: "hc-1a2b3c",
 * });
 * // report.failure?.rule === "idempotence", report.failure.timeline …
 */
export async function runHandlerCheck(options: HandlerCheckOptions): Promise<HandlerCheckReport> {
  const started = performance.now();
  const dialect = options.dialect ?? createStandardDialect();
  const truth = await startSimulatorTruth({
    dialect,
    referencePrefix: options.referencePrefix,
    ...(options.simulatorPort === undefined ? {} : { port: options.simulatorPort }),
    ...(options.simulatorToken === undefined ? {} : { token: options.simulatorToken }),
  });
  options.onStart?.({ url: truth.url, token: truth.token });
  const context: SequenceContext = {
    truth,
    dialect,
    secret: options.secret,
    client: createHandlerClient(options.handlerUrl, options.timeoutMs),
    state: createStateReader({
      source: options.state,
      statusPointer: options.statusPointer,
      effectsPointer: options.effectsPointer,
      timeoutMs: options.timeoutMs,
      readStatus: dialect.readStatus,
    }),
    reconcileUrl: options.reconcileUrl,
    nowSeconds: () => Math.floor(Date.now() / 1000),
  };
  const runs = createRunRecorder(context);
  try {
    const details = await fc.check(
      fc.asyncProperty(
        sequencePlanArbitrary({
          withhold: options.reconcileUrl !== undefined,
          maxOrders: options.maxOrders,
          forgeries: dialect.forgeries,
        }),
        runs.predicate,
      ),
      {
        numRuns: options.runs,
        ...(options.seed === undefined ? {} : { seed: options.seed }),
        ...(options.path === undefined ? {} : { path: options.path }),
      },
    );
    const common = {
      handlerUrl: options.handlerUrl,
      dialect: dialect.name,
      notApplicable: dialect.notApplicable,
      simulatorUrl: truth.url,
      seed: details.seed,
      runs: runs.executed(),
      durationMs: Math.round(performance.now() - started),
    };
    return { ...common, ...verdictOf(details, runs) };
  } finally {
    await truth.close();
  }
}
