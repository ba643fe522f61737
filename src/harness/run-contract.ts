/**
 * `runContract(options)`: sets up the target, the fault proxy (and Prism),
 * the webhook receiver and the budget; checks every property with
 * fast-check; for each failure replays the shrunk counterexample to confirm
 * it and record its steps; then looks for further failures with the failed
 * check switched off, so one defect never hides another.
 */
import { randomBytes, randomInt } from "node:crypto";
import fc from "fast-check";
import { MAGIC_ACCOUNTS } from "../scenarios/magic-accounts.ts";
import { defaultRecipients, type Recipient, toRecipient } from "./accounts.ts";
import { createBudget } from "./budget.ts";
import { type Checker, createChecker, HarnessError, isCheckFailure } from "./checker.ts";
import { CHECK_NAMES, CHECKS, type CheckName, selectChecks } from "./checks.ts";
import {
  type ContractOptions,
  DEFAULT_FINAL_TIMEOUT_MS,
  DEFAULT_MAX_COMMANDS,
  DEFAULT_RUNS,
  DEFAULT_TIMING_MS,
  DEFAULT_WEBHOOK_TIMEOUT_MS,
} from "./contract-options.ts";
import { startFaultProxy } from "./fault-proxy.ts";
import type { HarnessContext } from "./harness-context.ts";
import { createHttpClient } from "./http-client.ts";
import { type PrismProxy, startPrism } from "./prism.ts";
import { createAuthProperty } from "./properties/auth.ts";
import { createIsolationProperty } from "./properties/isolation.ts";
import { createKeyLengthProperty } from "./properties/key-length.ts";
import { createModelRunProperty } from "./properties/model-run.ts";
import { createNegativeInputProperty } from "./properties/negative-input.ts";
import { createStatusCodesProperty } from "./properties/status-codes.ts";
import type { ContractProperty, PropertyName, RunRecorder } from "./property.ts";
import { formatReplayPath, parseReplayPath } from "./replay.ts";
import { buildReplayCommand } from "./replay-command.ts";
import type { CheckFailureReport, CheckVerdict, ContractReport, PropertyReport } from "./report.ts";
import { type ResolvedTarget, resolveTarget, type TargetSpec } from "./target.ts";
import { createTranscript, type Transcript, toCurl } from "./transcript.ts";
import { startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver.ts";

const WEBHOOK_SKIP_REASON =
  "webhook checks need --webhook-listen HOST:PORT (reachable by the target) and --webhook-secret";
const ISOLATION_SKIP_REASON = "customer_isolation needs --other-token (a second customer's token)";

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
export async function runContract(options: ContractOptions = {}): Promise<ContractReport> {
  const started = Date.now();
  const selection = selectChecks({
    ...(options.checks === undefined ? {} : { include: options.checks }),
    ...(options.excludeChecks === undefined ? {} : { exclude: options.excludeChecks }),
  });
  if (!selection.ok) throw new HarnessError(selection.error);
  if (options.target !== undefined && options.token === undefined) throw new HarnessError("--target needs --token");
  const replay = options.path === undefined ? undefined : parseReplayPath(options.path);
  if (options.path !== undefined && replay === undefined)
    throw new HarnessError(`--path '${options.path}' is not a replay path`);
  if (replay !== undefined && options.properties?.length !== 1) {
    throw new HarnessError("--path replays one property: give exactly one --property");
  }
  if ((options.webhookListen === undefined) !== (options.webhookSecret === undefined)) {
    throw new HarnessError("--webhook-listen and --webhook-secret go together");
  }
  const recipients = resolveRecipients(options.accounts);
  if (options.target === undefined) refuseMagicAccounts(recipients);
  const seed = options.seed ?? randomInt(2 ** 31);
  const runs = replay === undefined ? (options.runs ?? DEFAULT_RUNS) : 1;
  const budget = createBudget(options.budget === undefined ? undefined : Math.round(options.budget * 100));
  const timingMs = options.timingMs ?? DEFAULT_TIMING_MS;

  const spec: TargetSpec =
    options.target === undefined
      ? {
          kind: "in_process",
          seed,
          timingMs,
          ...(options.simulator === undefined ? {} : { simulator: options.simulator }),
        }
      : {
          kind: "remote",
          url: options.target,
          token: options.token as string,
          ...(options.otherToken === undefined ? {} : { otherToken: options.otherToken }),
          ...(options.adminUrl === undefined ? {} : { adminUrl: options.adminUrl }),
          ...(options.adminToken === undefined ? {} : { adminToken: options.adminToken }),
          ...(options.timingMs === undefined ? {} : { timingMs: options.timingMs }),
        };

  const closers: (() => Promise<void>)[] = [];
  const errors: string[] = [];
  const verdicts = new Map<CheckName, CheckVerdict>();
  const propertyReports: PropertyReport[] = [];
  let target: ResolvedTarget | undefined;
  try {
    target = await resolveTarget(spec);
    closers.push((target as ResolvedTarget).close);
    const receiver = await startReceiver(options, target);
    const subscription =
      receiver === undefined ? undefined : { url: options.webhookUrl ?? receiver.url, secret: receiver.secret };
    if (receiver !== undefined) closers.push(receiver.close);
    let prism: PrismProxy | undefined;
    if (options.validateWithPrism === true) {
      prism = await startPrism({
        upstream: target.url,
        ...(options.prismCwd === undefined ? {} : { cwd: options.prismCwd }),
      });
      closers.push(prism.close);
    }
    const proxy = await startFaultProxy({ target: prism?.url ?? target.url });
    closers.push(proxy.close);
    const timeout = options.requestTimeoutMs === undefined ? {} : { timeoutMs: options.requestTimeoutMs };
    const nonce = randomBytes(3).toString("hex");
    let prefixes = 0;
    const h: HarnessContext = {
      target,
      faultClient: createHttpClient(proxy.url, timeout),
      directClient: createHttpClient(target.url, timeout),
      observe: (id) => proxy.observation(id),
      prism: prism !== undefined,
      budget,
      recipients,
      receiver,
      subscription,
      timeouts: {
        finalMs: options.finalTimeoutMs ?? DEFAULT_FINAL_TIMEOUT_MS,
        // The in-process simulator has delivered by the time its clock call returns; a short wait suffices.
        webhookMs: options.webhookTimeoutMs ?? (target.kind === "in_process" ? 2000 : DEFAULT_WEBHOOK_TIMEOUT_MS),
        pollMs: 100,
        maxWaitMs: options.maxWaitMs ?? 500,
      },
      maxCommands: options.maxCommands ?? DEFAULT_MAX_COMMANDS,
      maxAmountCents: budget.limitCents === undefined ? 500_000 : Math.min(50_000, budget.limitCents),
      nextPrefix: () => `h${nonce}${(++prefixes).toString(36)}`,
    };

    const unavailable = new Map<CheckName, string>();
    if (receiver === undefined) {
      for (const name of ["webhook_delivered", "webhook_signature_valid", "webhook_matches_lookup"] as const) {
        unavailable.set(name, WEBHOOK_SKIP_REASON);
      }
    }
    const hasOther = target.kind === "in_process" || target.admin !== undefined || options.otherToken !== undefined;
    if (!hasOther) unavailable.set("customer_isolation", ISOLATION_SKIP_REASON);

    const all: ContractProperty[] = [
      createModelRunProperty(h),
      createNegativeInputProperty(h),
      createKeyLengthProperty(h),
      createAuthProperty(h),
      createStatusCodesProperty(h),
      ...(hasOther ? [createIsolationProperty(h)] : []),
    ];
    const chosen = all.filter((p) => options.properties === undefined || options.properties.includes(p.name));
    const exercised = new Map<CheckName, Set<PropertyName>>();
    const failed = new Set<CheckName>();

    const maxFailures = options.maxFailures ?? Number.POSITIVE_INFINITY;
    for (const property of chosen) {
      if (failed.size >= maxFailures) {
        propertyReports.push({
          name: property.name,
          summary: property.summary,
          runs: 0,
          status: "skipped",
          reason: `stopped after ${failed.size} failed check(s) (--max-failures)`,
        });
        continue;
      }
      const report = await checkProperty({
        property,
        selected: selection.checks,
        failed,
        seed,
        runs,
        replay,
        maxFailures,
        h,
        options,
        onFailure: (failure) => {
          failed.add(failure.check);
          verdicts.set(failure.check, {
            name: failure.check,
            description: CHECKS[failure.check].description,
            status: "failed",
            failure,
          });
        },
        onExercised: (checks) => {
          for (const check of checks) {
            const by = exercised.get(check) ?? new Set<PropertyName>();
            by.add(property.name);
            exercised.set(check, by);
          }
        },
      });
      propertyReports.push(report);
      if (report.status === "error" && report.reason !== undefined) errors.push(`${property.name}: ${report.reason}`);
    }

    for (const name of CHECK_NAMES) {
      if (verdicts.has(name)) continue;
      const description = CHECKS[name].description;
      const by = exercised.get(name);
      if (!selection.checks.has(name)) {
        verdicts.set(name, {
          name,
          description,
          status: "skipped",
          reason: "not selected (--checks / --exclude-checks)",
        });
      } else if (unavailable.has(name)) {
        verdicts.set(name, { name, description, status: "skipped", reason: unavailable.get(name) as string });
      } else if (by === undefined) {
        const reason =
          failed.size >= maxFailures
            ? `not reached: the run stopped after ${failed.size} failed check(s) (--max-failures)`
            : options.properties !== undefined
              ? "not exercised by the selected properties"
              : budget.limitCents !== undefined
                ? "not exercised: the budget left no room for the requests it needs"
                : "not exercised by this run";
        verdicts.set(name, { name, description, status: "skipped", reason });
      } else {
        verdicts.set(name, { name, description, status: "passed", properties: [...by] });
      }
    }
  } catch (error) {
    errors.push(error instanceof Error ? error.message : String(error));
  } finally {
    for (const close of closers.reverse()) {
      await close().catch((error: unknown) => errors.push(`cleanup: ${(error as Error).message}`));
    }
  }

  const checks = CHECK_NAMES.map(
    (name): CheckVerdict =>
      verdicts.get(name) ?? {
        name,
        description: CHECKS[name].description,
        status: "skipped",
        reason: "the run stopped early",
      },
  );
  return {
    ok: errors.length === 0 && checks.every((c) => c.status !== "failed"),
    seed,
    target: describeTarget(options, target),
    runsPerProperty: runs,
    durationMs: Date.now() - started,
    checks,
    properties: propertyReports,
    errors,
    spent: budget.spentCents() / 100,
    budget: options.budget,
  };
}

interface CheckPropertyInput {
  readonly property: ContractProperty;
  readonly selected: ReadonlySet<CheckName>;
  readonly failed: ReadonlySet<CheckName>;
  readonly seed: number;
  readonly runs: number;
  readonly replay: { readonly path: string; readonly replayPath: string | undefined } | undefined;
  readonly maxFailures: number;
  readonly h: HarnessContext;
  readonly options: ContractOptions;
  readonly onFailure: (failure: CheckFailureReport) => void;
  readonly onExercised: (checks: ReadonlySet<CheckName>) => void;
}

/** Checks one property until it passes with every check that has not failed yet. */
async function checkProperty(input: CheckPropertyInput): Promise<PropertyReport> {
  const { property, h, options } = input;
  const base = { name: property.name, summary: property.summary };
  let runsSoFar = 0;
  let anyFailure = false;
  for (let attempt = 0; attempt <= CHECK_NAMES.length; attempt++) {
    const enabled = new Set(property.checks.filter((c) => input.selected.has(c) && !input.failed.has(c)));
    if (enabled.size === 0) {
      return anyFailure
        ? { ...base, runs: runsSoFar, status: "failed" }
        : { ...base, runs: runsSoFar, status: "skipped", reason: "none of its checks is selected" };
    }
    const checker = createChecker(enabled);
    const recorder = createRecorder(h, () => {
      runsSoFar++;
      options.onProgress?.({
        property: property.name,
        run: runsSoFar,
        runs: input.runs,
        phase: input.replay !== undefined ? "replay" : attempt === 0 ? "search" : "shrink-or-retry",
      });
    });
    const result = await fc.check(property.build({ checker, recorder, replayPath: input.replay?.replayPath }), {
      seed: input.seed,
      numRuns: input.runs,
      ...(input.replay === undefined ? {} : { path: input.replay.path, endOnFailure: true }),
    });
    input.onExercised(checker.exercised());
    if (!result.failed) {
      return anyFailure
        ? { ...base, runs: runsSoFar, status: "failed" }
        : { ...base, runs: runsSoFar, status: "passed" };
    }
    const error = result.errorInstance;
    if (!isCheckFailure(error)) {
      const message = error instanceof Error ? error.message : String(result.errorInstance ?? "unknown failure");
      if (/pre-?condition/i.test(message) || result.numSkips > 0) {
        return {
          ...base,
          runs: runsSoFar,
          status: anyFailure ? "failed" : "skipped",
          reason: "the budget left no room for its requests",
        };
      }
      if (anyFailure) {
        // With the failed check off, the target's defect can leave nothing sensible to judge (e.g. an order without id).
        return { ...base, runs: runsSoFar, status: "failed", reason: `stopped after the failure(s) above: ${message}` };
      }
      return { ...base, runs: runsSoFar, status: "error", reason: message };
    }
    anyFailure = true;
    const counterexample = (result.counterexample ?? []) as unknown[];
    const replayPath = property.replayPathOf?.(counterexample);
    const path = result.counterexamplePath ?? "";
    const confirmation = await confirm(input, error.check, path, replayPath, recorder.lastFailed());
    input.onFailure({
      check: error.check,
      property: property.name,
      message: error.message.replace(/^\[[a-z_]+\] /, ""),
      seed: result.seed,
      path: formatReplayPath(path, replayPath),
      steps: confirmation.transcript.steps().map((step) => ({
        label: step.label,
        curl: step.exchanges.map((exchange) =>
          toCurl(exchange.request, { baseUrl: h.target.displayUrl, secrets: h.target.secrets }),
        ),
      })),
      replay: buildReplayCommand(options, {
        check: error.check,
        property: property.name,
        seed: result.seed,
        path: formatReplayPath(path, replayPath),
      }),
      reproduced: confirmation.reproduced,
    });
    if (input.replay !== undefined || input.failed.size >= input.maxFailures) {
      return { ...base, runs: runsSoFar, status: "failed" };
    }
  }
  return { ...base, runs: runsSoFar, status: "failed" };
}

/** Replays the counterexample with only its check on: same failure → reproduced; its transcript is the report's. */
async function confirm(
  input: CheckPropertyInput,
  check: CheckName,
  path: string,
  replayPath: string | undefined,
  fallback: Transcript,
): Promise<{ reproduced: boolean; transcript: Transcript }> {
  const checker: Checker = createChecker(new Set([check]));
  const recorder = createRecorder(input.h, () => {});
  try {
    const result = await fc.check(input.property.build({ checker, recorder, replayPath }), {
      seed: input.seed,
      path,
      numRuns: 1,
      endOnFailure: true,
    });
    const same = result.failed && isCheckFailure(result.errorInstance) && result.errorInstance.check === check;
    return { reproduced: same, transcript: same ? recorder.lastFailed() : fallback };
  } catch {
    return { reproduced: false, transcript: fallback };
  }
}

function createRecorder(h: HarnessContext, onRun: () => void): RunRecorder & { lastFailed(): Transcript } {
  let current = createTranscript();
  let failedRun = current;
  return {
    startRun() {
      onRun();
      current = createTranscript();
      const transcript = current;
      h.faultClient.onExchange((exchange) => transcript.record(exchange));
      h.directClient.onExchange((exchange) => transcript.record(exchange));
      return transcript;
    },
    failRun() {
      failedRun = current;
    },
    lastFailed: () => failedRun,
  };
}

function resolveRecipients(accounts: readonly string[] | undefined): readonly Recipient[] {
  if (accounts === undefined) return defaultRecipients();
  const recipients = accounts.map((account) => {
    const recipient = toRecipient(account);
    if (recipient === undefined)
      throw new HarnessError(`account '${account}' is not a Kenyan mobile number of one of the five operators`);
    return recipient;
  });
  if (recipients.length === 0) throw new HarnessError("the accounts list is empty");
  return recipients;
}

/**
 * In-process, statuses are predicted from the timing; a magic test number's
 * scripted outcome (fail, stay pending …) would contradict the model.
 */
function refuseMagicAccounts(recipients: readonly Recipient[]): void {
  const magic = new Set(MAGIC_ACCOUNTS.map((entry) => entry.account));
  const used = recipients.filter((recipient) => magic.has(recipient.e164));
  if (used.length > 0) {
    throw new HarnessError(
      `${used.map((r) => r.account).join(", ")}: magic test number(s) with a scripted outcome; the in-process run predicts every order's status, so use ordinary numbers`,
    );
  }
}

async function startReceiver(options: ContractOptions, target: ResolvedTarget): Promise<WebhookReceiver | undefined> {
  if (options.webhookListen !== undefined && options.webhookSecret !== undefined) {
    const { host, port } = parseListen(options.webhookListen);
    return startWebhookReceiver({ secret: options.webhookSecret, host, port });
  }
  if (target.kind === "in_process") {
    // The in-process simulator can reach a local receiver, and the harness subscribes each fresh customer to it.
    return startWebhookReceiver({ secret: `whsec_${randomBytes(32).toString("base64")}`, host: "127.0.0.1", port: 0 });
  }
  return undefined;
}

export function parseListen(text: string): { host: string; port: number } {
  const match = /^(.*):(\d{1,5})$/.exec(text);
  const port = Number(match?.[2]);
  if (match?.[1] === undefined || !(port >= 0 && port < 65536))
    throw new HarnessError(`--webhook-listen '${text}' is not HOST:PORT`);
  return { host: match[1] === "" ? "127.0.0.1" : match[1].replace(/^\[|\]$/g, ""), port };
}

function describeTarget(options: ContractOptions, target: ResolvedTarget | undefined): string {
  if (options.target === undefined) {
    return `in-process simulator (virtual clock, ${options.timingMs ?? DEFAULT_TIMING_MS} ms to final)`;
  }
  const powers = target?.admin === undefined ? "no admin powers" : `admin powers, ${target.clockMode} clock`;
  return `${options.target} (${powers})`;
}
