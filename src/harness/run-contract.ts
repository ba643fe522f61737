/**
 * `runContract(options)` in four named steps: plan the run (normalise and
 * check the options), open what the properties share (target, receiver, Prism, fault
 * proxy, budget — one AsyncDisposable), run the properties into one coverage
 * aggregate (check-property.ts: replay before shrinking, shrinking capped in
 * time), and decide the verdicts with a pure function (contract-verdicts.ts).
 */
import { createTimings } from "./audit/timings.ts";
import { createBudget } from "./budget.ts";
import { judgePromises, waitPastFinal } from "./audit/late-audit.ts";
import { checkProperty, stepsOf } from "./check-property.ts";
import { type Checker, createChecker, HarnessError } from "./checker.ts";
import { CHECK_NAMES, type CheckName } from "./checks.ts";
import type { ContractOptions } from "./contract-options.ts";
import { type ContractPlan, planContractRun } from "./contract-plan.ts";
import { type CoverageAggregate, decideVerdicts, emptyAggregate, unavailableChecks } from "./contract-verdicts.ts";
import { directApi, type HarnessContext } from "./harness-context.ts";
import { createHttpClient, type HttpClient, type HttpNetworkError } from "./http-client.ts";
import { pacedClient } from "./paced-client.ts";
import { assertListenAddressFree } from "./listen-address.ts";
import { openContractRun } from "./open-contract-run.ts";
import { createAuthProperty } from "./properties/auth.ts";
import { createIsolationProperty } from "./properties/isolation.ts";
import { createKeyLengthProperty } from "./properties/key-length.ts";
import { createModelRunProperty } from "./properties/model-run.ts";
import { createNegativeInputProperty } from "./properties/negative-input.ts";
import { createStatusCodesProperty } from "./properties/status-codes.ts";
import type { ContractProperty, PropertyName } from "./property.ts";
import { type ContractReport, isRunOk, type PropertyReport } from "./report.ts";
import { loadSavedRun, saveRun } from "./audit/promised-orders.ts";
import { createTranscript } from "./transcript.ts";

/**
 * Runs the contract checks and returns the report; never throws for a
 * contract violation (that is a failed check), only for unusable options.
 *
 * @example
 * import { runContract } from "airtime-harness";
 * const report = await runContract({ runs: 50 }); // in-process simulator
 * if (!report.ok) process.exitCode = 1;
 *
 * @example
 * await runContract({ target: "https://sandbox.example.com", token: process.env.TOKEN, budget: 200 });
 */
export async function runContract(given: ContractOptions = {}): Promise<ContractReport> {
  const started = Date.now();
  const plan = await planContractRun(given);
  const { settings } = plan;
  await preflightRun(plan, given);
  const timings = createTimings();
  const seen = emptyAggregate();
  const errors: string[] = [];
  const propertyReports: PropertyReport[] = [];
  let harness: HarnessContext | undefined;
  let modelRuns = plan.runs;
  let unavailable = new Map<CheckName, string>();
  let finished = false;
  try {
    const run = await openContractRun(plan, timings);
    try {
      harness = run.harness;
      const hasOther = hasOtherCustomer(plan, harness);
      unavailable = unavailableChecks({
        profile: settings.profile,
        inProfile: plan.inProfile,
        hasReceiver: harness.receiver !== undefined,
        signingGiven: plan.provider.given.signing,
        hasOtherCustomer: hasOther,
      });
      modelRuns = modelRunsFor(plan, harness);
      const recheck = settings.recheck === undefined ? undefined : await loadRecheck(plan, harness, unavailable);
      const chosen = recheck === undefined ? chooseProperties(plan, harness, hasOther) : [];
      errors.push(...(await runProperties({ plan, harness, chosen, modelRuns, seen, reports: propertyReports })));
      await harness.timings.time("late audit", () => runLateAudit(plan, harness as HarnessContext, seen));
      // --save-run needs --target (contract-plan.ts): the spec is remote.
      if (settings.saveRun !== undefined && plan.spec.kind === "remote") {
        await saveRun(settings.saveRun, plan.spec.url, plan.spec.token, harness.promises.all());
      }
      finished = true;
    } finally {
      errors.push(...(await run.close()));
    }
  } catch (error) {
    errors.push(error instanceof Error ? error.message : String(error));
  }
  const budget = harness?.budget ?? createBudget(undefined);
  const checks = decideVerdicts({
    seen,
    finished,
    selected: plan.selected,
    unavailable,
    maxFailures: settings.maxFailures,
    propertiesChosen: settings.properties !== undefined,
    budgetRefusals: budget.refusals(),
    provider: plan.provider,
    webhooks: harness?.receiver?.arrivals(),
    placements: harness?.placements.counts(),
  });
  const { requireCoverage } = settings;
  return {
    ok: isRunOk(checks, errors, requireCoverage),
    seed: settings.seed,
    target: describeTarget(plan, harness),
    profile: settings.profile,
    runsPerProperty: plan.runs,
    modelRuns,
    durationMs: Date.now() - started,
    checks,
    properties: propertyReports,
    errors,
    spent: budget.spentCents() / 100,
    budget: settings.budget,
    requireCoverage,
    // Admin powers answer only on our simulator: its own ways to reach a missing case can be named.
    simulator: harness?.target.admin !== undefined,
    timings: timings.totals(),
  };
}

function hasOtherCustomer(plan: ContractPlan, harness: HarnessContext): boolean {
  const { target } = harness;
  return target.kind === "in_process" || target.admin !== undefined || plan.settings.otherToken !== undefined;
}

/** Against a real clock every model run waits for its orders' finals: fewer, fully audited runs by default. */
function modelRunsFor(plan: ContractPlan, harness: HarnessContext): number {
  const realClock = plan.replay === undefined && harness.target.clockMode === "real";
  return realClock ? plan.settings.realClockModelRuns : plan.runs;
}

function chooseProperties(plan: ContractPlan, harness: HarnessContext, hasOther: boolean): ContractProperty[] {
  const all: ContractProperty[] = [
    createModelRunProperty(harness),
    createNegativeInputProperty(harness),
    createKeyLengthProperty(harness),
    createAuthProperty(harness),
    createStatusCodesProperty(harness),
    ...(hasOther ? [createIsolationProperty(harness)] : []),
  ];
  const wanted = plan.settings.properties;
  return all.filter((property) => wanted === undefined || wanted.includes(property.name));
}

interface PropertiesRun {
  readonly plan: ContractPlan;
  readonly harness: HarnessContext;
  readonly chosen: readonly ContractProperty[];
  readonly modelRuns: number;
  /** Filled in as the properties run. */
  readonly seen: CoverageAggregate;
  readonly reports: PropertyReport[];
}

/** Runs the chosen properties in order into one coverage aggregate; returns the properties' errors. */
async function runProperties(input: PropertiesRun): Promise<string[]> {
  const { plan, harness, seen } = input;
  const errors: string[] = [];
  const { maxFailures, seed } = plan.settings;
  const failed = new Set<CheckName>();
  const selected = new Set([...plan.selected].filter((name) => plan.inProfile.has(name)));
  for (const property of input.chosen) {
    if (failed.size >= maxFailures) {
      input.reports.push(stoppedEarly(property, failed.size));
      continue;
    }
    const report = await checkProperty({
      property,
      selected,
      failed,
      seed,
      runs: property.name === "model" ? input.modelRuns : plan.runs,
      replay: plan.replay,
      maxFailures,
      harness,
      settings: plan.settings,
      onFailure: (failure) => {
        failed.add(failure.check);
        seen.failures.set(failure.check, failure);
      },
      onExercised: (checker) => addCoverage(seen, property.name, checker),
      onPhase: (phase, ms) => harness.timings.add(phase, ms),
    });
    input.reports.push(report);
    if (report.status === "error" && report.reason !== undefined) errors.push(`${property.name}: ${report.reason}`);
  }
  return errors;
}

/**
 * After every model run: every order looked up again, every key replayed,
 * once the newest order is --late-audit past final (0: off). Its failures
 * join the run's like any other, the late audit's steps as their evidence.
 */
async function runLateAudit(plan: ContractPlan, harness: HarnessContext, seen: CoverageAggregate): Promise<void> {
  const { lateAuditMs: afterMs, maxFailures, seed } = plan.settings;
  const orders = harness.promises.all();
  if (afterMs === 0 || orders.length === 0 || seen.failures.size >= maxFailures) return;
  const enabled = [...plan.selected].filter((name) => plan.inProfile.has(name) && !seen.failures.has(name));
  const checker = createChecker(new Set(enabled));
  const transcript = createTranscript();
  harness.directClient.onExchange((exchange) => transcript.record(exchange));
  transcript.step(`wait until the newest order is ${afterMs} ms past final`);
  await waitPastFinal(harness, orders, afterMs);
  const api = directApi(harness, checker, harness.nextPrefix());
  const failures = await judgePromises({ harness, api, checker, transcript, orders });
  addCoverage(seen, "model", checker);
  for (const [check, error] of failures) {
    seen.failures.set(check, {
      check,
      property: "model",
      message: error.message.replace(/^\[[a-z_]+\] /, ""),
      seed,
      path: "",
      steps: stepsOf(harness, transcript),
      replay: `a late defect: run the contract again (seed ${seed}); the late audit judges it after every model run`,
      reproduced: false,
      observed: true,
      shrinkMs: 0,
    });
  }
}

/** Checks a recheck judges: replays and lookups, and how their answers are written. */
const RECHECK_CHECKS: ReadonlySet<CheckName> = new Set([
  "idempotent_replay",
  "status_monotonic",
  "never_server_error",
  "response_schema_conformance",
  "status_code_conformance",
  "content_type_conformance",
]);

/** --recheck: the saved run's orders become this run's promises; every other check is out of its reach. */
async function loadRecheck(plan: ContractPlan, harness: HarnessContext, unavailable: Map<CheckName, string>) {
  const { settings } = plan;
  const orders = await loadSavedRun(settings.recheck as string, settings.target as string, settings.token as string);
  for (const order of orders) harness.promises.add(order);
  for (const name of CHECK_NAMES) {
    if (!RECHECK_CHECKS.has(name) && !unavailable.has(name))
      unavailable.set(name, "not judged by --recheck: it replays the saved keys and re-reads the saved orders");
  }
  return orders;
}

function stoppedEarly(property: ContractProperty, failedCount: number): PropertyReport {
  return {
    name: property.name,
    summary: property.summary,
    runs: 0,
    status: "skipped",
    reason: `stopped after ${failedCount} failed check(s) (--max-failures)`,
  };
}

function addCoverage(seen: CoverageAggregate, property: PropertyName, checker: Checker): void {
  for (const check of checker.exercised()) {
    const by = seen.exercised.get(check) ?? new Set<PropertyName>();
    by.add(property);
    seen.exercised.set(check, by);
  }
  for (const [check, texts] of checker.notes())
    seen.notes.set(check, new Set([...(seen.notes.get(check) ?? []), ...texts]));
  for (const [check, count] of checker.assertions())
    seen.assertions.set(check, (seen.assertions.get(check) ?? 0) + count);
  for (const [check, labels] of checker.tallies()) {
    const into = seen.tallies.get(check) ?? new Map<string, number>();
    for (const [label, count] of labels) into.set(label, (into.get(label) ?? 0) + count);
    seen.tallies.set(check, into);
  }
}

function describeTarget(plan: ContractPlan, harness: HarnessContext | undefined): string {
  const { spec } = plan;
  if (spec.kind === "in_process") return `in-process simulator (virtual clock, ${spec.timingMs} ms to final)`;
  const target = harness?.target;
  const powers = target?.admin === undefined ? "no admin powers" : `admin powers, ${target.clockMode} clock`;
  return `${spec.url} (${powers})`;
}

/**
 * Before any property: a webhook address in use, an unreachable target or a
 * refused token stops the run with the cause, not a table.
 */
async function preflightRun(plan: ContractPlan, given: ContractOptions): Promise<void> {
  const { settings } = plan;
  if (settings.webhookListen !== undefined) await assertListenAddressFree(settings.webhookListen);
  if (plan.spec.kind !== "remote") return;
  const tokenFlag = given.token === undefined ? "--token-command" : "--token";
  await preflight({
    // Paced too: a provider's stated rate limit counts these requests like any other.
    client: pacedClient(createHttpClient(plan.spec.url, { timeoutMs: settings.requestTimeoutMs }), plan.pacer),
    url: plan.spec.url,
    unauthorized: plan.provider.resolved.http.unauthorized ?? 401,
    tokens: [
      { flag: tokenFlag, token: plan.spec.token },
      ...(plan.spec.otherToken === undefined ? [] : [{ flag: "--other-token", token: plan.spec.otherToken }]),
    ],
  });
}

/**
 * The preflight before any property: a remote target that cannot be reached,
 * or a token it refuses, would otherwise surface as a table of skipped or
 * errored checks with the real cause buried after it. One authenticated read
 * per token settles both, and the run stops with the cause as its first line.
 */

/** Plain words for the network errors an integrator meets most. */
const NETWORK_CAUSES: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  ETIMEDOUT: "no answer in time",
  ECONNRESET: "connection reset",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
};

interface PreflightInput {
  readonly client: HttpClient;
  readonly url: string;
  /** Each token with the flag that gave it, so a refusal names the flag. */
  readonly tokens: readonly { readonly flag: string; readonly token: string }[];
  /** The status the provider answers a refused token with (401 unless its profile says otherwise). */
  readonly unauthorized: number;
}

/**
 * Throws a HarnessError when the target does not answer or refuses a token.
 *
 * @example
 * await preflight({ client, url, tokens: [{ flag: "--token", token }], unauthorized: 401 });
 */
async function preflight(input: PreflightInput): Promise<void> {
  for (const { flag, token } of input.tokens) {
    const outcome = await input.client.send({
      method: "GET",
      path: "/v1/balance",
      headers: { authorization: `Bearer ${token}`, accept: "application/json" },
    });
    if (outcome.kind === "network_error") throw new HarnessError(describeUnreachable(input.url, outcome));
    if (outcome.status === input.unauthorized) {
      throw new HarnessError(
        `${flag} was refused by ${input.url}: ${outcome.status} on GET /v1/balance; check the token (and that it belongs to this target)`,
      );
    }
  }
}

/** "cannot reach URL: connection refused (ECONNREFUSED)": the cause first, the code for searching. */
function describeUnreachable(url: string, error: HttpNetworkError): string {
  const cause = NETWORK_CAUSES[error.code] ?? error.message;
  return `cannot reach ${url}: ${cause} (${error.code})`;
}
