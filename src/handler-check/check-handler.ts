/**
 * `runHandlerCheck`: the property. fast-check generates delivery sequences,
 * each runs against the handler with fresh orders from the simulator's truth,
 * and the first sequence that breaks a rule is shrunk to the smallest one
 * that still does. Replays from `{seed, path}`.
 */
import fc from "fast-check";
import { createStateReader, StateReadError } from "./believed-state.ts";
import type { Forgery } from "./delivery-dialect.ts";
import { createHandlerClient } from "./handler-client.ts";
import type { RuleName } from "./judge.ts";
import { type RunOutcome, runSequence, type SequenceContext, type TimelineEntry } from "./run-sequence.ts";
import { type SequencePlan, sequencePlanArbitrary } from "./sequence-model.ts";
import { startSimulatorTruth, type TrueOrder } from "./simulator-truth.ts";
import { type HandlerCheckOptions, handlerCheckRunSettings } from "./handler-check-settings.ts";

export {
  DEFAULT_HANDLER_CHECK_RUNS,
  DEFAULT_HANDLER_TIMEOUT_MS,
  DEFAULT_MAX_ORDERS,
  type HandlerCheckOptions,
} from "./handler-check-settings.ts";

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
export async function runHandlerCheck(input: HandlerCheckOptions): Promise<HandlerCheckReport> {
  const started = performance.now();
  const options = handlerCheckRunSettings(input);
  const { dialect } = options;
  const truth = await startSimulatorTruth({
    dialect,
    referencePrefix: options.referencePrefix,
    port: options.simulatorPort,
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
