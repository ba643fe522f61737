/**
 * `runHandlerCheck`: the property. fast-check generates delivery sequences,
 * each runs against the handler with fresh orders from the simulator's truth,
 * and the first sequence that breaks a rule is shrunk to the smallest one
 * that still does. Replays from `{seed, path}`.
 */
import fc from "fast-check";
import { createStateReader, StateReadError, type Believed, type StateReader } from "./believed-state.ts";
import type { Forgery, DeliveryDialect } from "./delivery-dialect.ts";
import { createHandlerClient, type HandlerAnswer, type HandlerClient } from "./handler-client.ts";
import {
  type RuleName,
  createLedger,
  judgeConvergence,
  judgeStep,
  type SentDelivery,
  type Violation,
} from "./judge.ts";
import {
  type SequencePlan,
  sequencePlanArbitrary,
  buildSteps,
  type Step,
  type StepKind,
  withheldOrders,
} from "./sequence-model.ts";
import { startSimulatorTruth, type TrueOrder, type SimulatorTruth } from "./simulator-truth.ts";
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

// One generated run against the handler: the simulator realises the plan's
// orders, the steps go out (copies and bursts at once), the app's belief is
// read after every step, and the run stops at the first rule broken. The
// timeline is what a report prints.

export interface TimelineEntry {
  readonly kind: StepKind | "reconcile";
  readonly deliveries: readonly SentDelivery[];
  /** The reconcile request's answer, for a `reconcile` entry. */
  readonly answer?: HandlerAnswer;
  /** What the app believed right after, for the orders the step touched. */
  readonly believed: readonly { readonly reference: string; readonly believed: Believed }[];
}

interface RunOutcome {
  readonly orders: readonly TrueOrder[];
  readonly timeline: readonly TimelineEntry[];
  readonly violation?: Violation;
}

interface SequenceContext {
  readonly truth: SimulatorTruth;
  readonly dialect: DeliveryDialect;
  readonly secret: string;
  readonly client: HandlerClient;
  readonly state: StateReader;
  /** Where to ask the handler to reconcile by lookup; withheld messages are generated only with it. */
  readonly reconcileUrl?: string | undefined;
  /** Wall-clock Unix seconds: receivers check the timestamp against their own clock. */
  readonly nowSeconds: () => number;
}

async function readAll(state: StateReader, references: readonly string[]): Promise<Map<string, Believed>> {
  const read = await Promise.all(
    references.map(async (reference) => [reference, await state.read(reference)] as const),
  );
  return new Map(read);
}

async function send(step: Step, context: SequenceContext): Promise<SentDelivery[]> {
  const at = context.nowSeconds();
  return Promise.all(
    step.deliveries.map(async ({ message, forgery }) => {
      const request =
        forgery === undefined
          ? context.dialect.sign(message, at, context.secret)
          : context.dialect.forge(message, forgery, at, context.secret);
      const answer = await context.client.deliver(request);
      return { message, ...(forgery === undefined ? {} : { forgery }), request, answer };
    }),
  );
}

function entryOf(kind: TimelineEntry["kind"], deliveries: SentDelivery[], believed: ReadonlyMap<string, Believed>) {
  return { kind, deliveries, believed: [...believed].map(([reference, value]) => ({ reference, believed: value })) };
}

/** Asks the handler to look up the orders it placed, when some final messages were withheld. */
async function reconcile(orders: readonly TrueOrder[], context: SequenceContext, timeline: TimelineEntry[]) {
  if (context.reconcileUrl === undefined) return;
  const references = orders.map((order) => order.reference);
  const answer = await context.client.post(context.reconcileUrl, { references });
  timeline.push({ ...entryOf("reconcile", [], await readAll(context.state, references)), answer });
}

/**
 * @example
 * const outcome = await runSequence(plan, context);
 * if (outcome.violation) console.log(outcome.violation.rule, outcome.timeline.length);
 */
async function runSequence(plan: SequencePlan, context: SequenceContext): Promise<RunOutcome> {
  const orders = await context.truth.realise(plan.orders.map(({ order }) => order));
  const references = orders.map((order) => order.reference);
  const believed = await readAll(context.state, references);
  const ledger = createLedger();
  const timeline: TimelineEntry[] = [];
  for (const step of buildSteps(plan, orders)) {
    const touched = [...new Set(step.deliveries.map(({ message }) => message.reference))];
    const before = new Map(touched.map((reference) => [reference, believed.get(reference) as Believed]));
    const sent = await send(step, context);
    const after = await readAll(context.state, touched);
    for (const [reference, value] of after) believed.set(reference, value);
    timeline.push(entryOf(step.kind, sent, after));
    const violation = judgeStep(step.kind, sent, before, after, ledger);
    if (violation !== undefined) return { orders, timeline, violation };
  }
  if (withheldOrders(plan, orders).length > 0) await reconcile(orders, context, timeline);
  const violation = judgeConvergence(orders, await readAll(context.state, references));
  return { orders, timeline, ...(violation === undefined ? {} : { violation }) };
}
