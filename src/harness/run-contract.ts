/**
 * `runContract(options)`: sets up the target, the fault proxy (and Prism),
 * the webhook receiver, the budget and the ledger of orders; checks every
 * property with fast-check (see check-property.ts: replay before shrinking,
 * shrinking capped in time); then turns what each check saw into a verdict —
 * passed with its coverage, failed with its counterexample, not exercised
 * when it never met a class of case it is about, or skipped with the reason.
 */
import { randomBytes, randomInt } from "node:crypto";
import { MAGIC_ACCOUNTS } from "../scenarios/magic-accounts.ts";
import { defaultRecipients, type Recipient, toRecipient } from "./accounts.ts";
import { createLedger } from "./audit/ledger.ts";
import { createTimings } from "./audit/timings.ts";
import { type CompiledProfile, compileProfile } from "../contract/provider-profile/compile.ts";
import { checkProperty } from "./check-property.ts";
import { describeCoverage } from "./coverage.ts";
import { createBudget } from "./budget.ts";
import { HarnessError } from "./checker.ts";
import { CHECK_NAMES, CHECKS, type CheckName, selectChecks } from "./checks.ts";
import {
  type ContractOptions,
  DEFAULT_FINAL_TIMEOUT_MS,
  DEFAULT_MAX_COMMANDS,
  DEFAULT_REAL_CLOCK_MODEL_RUNS,
  DEFAULT_RUNS,
  DEFAULT_TIMING_MS,
  DEFAULT_WEBHOOK_TIMEOUT_MS,
} from "./contract-options.ts";
import { startFaultProxy } from "./fault-proxy.ts";
import type { HarnessContext } from "./harness-context.ts";
import { createHttpClient, type HttpClient } from "./http-client.ts";
import { type PrismProxy, startPrism } from "./prism.ts";
import { createAuthProperty } from "./properties/auth.ts";
import { createIsolationProperty } from "./properties/isolation.ts";
import { createKeyLengthProperty } from "./properties/key-length.ts";
import { createModelRunProperty } from "./properties/model-run.ts";
import { createNegativeInputProperty } from "./properties/negative-input.ts";
import { checksOf, type Profile } from "./profiles.ts";
import { loadTargetSpec } from "./target-spec.ts";
import { createStatusCodesProperty } from "./properties/status-codes.ts";
import type { ContractProperty, PropertyName } from "./property.ts";
import { parseReplayPath } from "./replay.ts";
import { type CheckVerdict, type ContractReport, isRunOk, type PropertyReport } from "./report.ts";
import { type ResolvedTarget, resolveTarget, type TargetSpec } from "./target.ts";
import { createTokenSource, runTokenCommand } from "./token-source.ts";
import { unexercisedReason } from "./unexercised-reason.ts";
import { startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver.ts";

const WEBHOOK_SKIP_REASON =
  "webhook checks need --webhook-listen HOST:PORT (reachable by the target) and --webhook-secret";
const UNSIGNED = compileProfile({ profile: 1, webhooks: { signing: { scheme: "none" } } });
const UNSIGNED_SKIP_REASON =
  "not judged under --profile interface: the provider profile names no webhook signing scheme (webhooks.signing)";
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
export async function runContract(given: ContractOptions = {}): Promise<ContractReport> {
  const started = Date.now();
  // An expiring token: the command gives the first one, and a fresh one whenever a working token gets 401.
  const firstToken =
    given.tokenCommand === undefined || given.token !== undefined
      ? undefined
      : await runTokenCommand(given.tokenCommand);
  const options: ContractOptions = firstToken === undefined ? given : { ...given, token: firstToken };
  const tokens =
    given.tokenCommand === undefined || options.token === undefined
      ? undefined
      : createTokenSource(given.tokenCommand, options.token);
  const profile = options.profile ?? "strict";
  const provider = compileProfile(options.provider);
  const inProfile = checksOf(profile);
  const selection = selectChecks({
    ...(options.checks === undefined ? {} : { include: options.checks }),
    ...(options.excludeChecks === undefined ? {} : { exclude: options.excludeChecks }),
  });
  if (!selection.ok) throw new HarnessError(selection.error);
  if (options.target !== undefined && options.token === undefined) {
    throw new HarnessError("--target needs --token (or --token-command)");
  }
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
  let budget = createBudget(options.budget === undefined ? undefined : Math.round(options.budget * 100));
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
  const timings = createTimings();
  let modelRuns = runs;
  const errors: string[] = [];
  const verdicts = new Map<CheckName, CheckVerdict>();
  const propertyReports: PropertyReport[] = [];
  let target: ResolvedTarget | undefined;
  try {
    target = await resolveTarget(spec);
    closers.push((target as ResolvedTarget).close);
    const receiver = await startReceiver(options, target, provider, profile);
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
    const directClient = createHttpClient(target.url, timeout);
    if (options.budget === undefined && target.kind === "remote" && target.admin === undefined) {
      // One account, no admin powers to fund another: never ask for more than it holds at the start, so
      // the run cannot drain it and leave later properties facing a 402 they did not cause.
      const start = await startingBalanceCents(directClient, options.token as string, provider);
      if (start !== undefined) budget = createBudget(start);
    }
    const nonce = randomBytes(3).toString("hex");
    let prefixes = 0;
    const h: HarnessContext = {
      target,
      faultClient: createHttpClient(proxy.url, timeout),
      directClient,
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
      ledger: createLedger(),
      sharedAccount: options.sharedAccount === true,
      timings,
      profile,
      provider,
      tokens,
      targetSpec: options.specFile === undefined ? undefined : await loadTargetSpec(options.specFile),
      nextPrefix: () => `h${nonce}${(++prefixes).toString(36)}`,
    };

    const unavailable = new Map<CheckName, string>();
    for (const name of CHECK_NAMES) {
      if (!inProfile.has(name)) {
        unavailable.set(
          name,
          `not judged under --profile ${profile}: our spec decides it, the interface leaves it free`,
        );
      }
    }
    if (receiver === undefined) {
      for (const name of ["webhook_delivered", "webhook_signature_valid", "webhook_matches_lookup"] as const) {
        unavailable.set(name, WEBHOOK_SKIP_REASON);
      }
    }
    if (profile === "interface" && !provider.given.signing)
      unavailable.set("webhook_signature_valid", UNSIGNED_SKIP_REASON);
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
    // Against a real clock every model run waits for its orders' finals: fewer, fully audited runs by default.
    if (replay === undefined && options.runs === undefined && target.clockMode === "real") {
      modelRuns = DEFAULT_REAL_CLOCK_MODEL_RUNS;
    }
    const chosen = all.filter((p) => options.properties === undefined || options.properties.includes(p.name));
    const exercised = new Map<CheckName, Set<PropertyName>>();
    const assertions = new Map<CheckName, number>();
    const tallies = new Map<CheckName, Map<string, number>>();
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
        selected: new Set([...selection.checks].filter((name) => inProfile.has(name))),
        failed,
        seed,
        runs: property.name === "model" ? modelRuns : runs,
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
        onExercised: (checker) => {
          for (const check of checker.exercised()) {
            const by = exercised.get(check) ?? new Set<PropertyName>();
            by.add(property.name);
            exercised.set(check, by);
          }
          for (const [check, count] of checker.assertions())
            assertions.set(check, (assertions.get(check) ?? 0) + count);
          for (const [check, labels] of checker.tallies()) {
            const into = tallies.get(check) ?? new Map<string, number>();
            for (const [label, count] of labels) into.set(label, (into.get(label) ?? 0) + count);
            tallies.set(check, into);
          }
        },
        onPhase: (phase, ms) => timings.add(phase, ms),
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
        const { status, reason } = unexercisedReason(name, {
          stoppedAfterFailures: failed.size >= maxFailures ? failed.size : undefined,
          propertiesSelected: options.properties !== undefined,
          budgetRefusals: budget.refusals(),
          webhooks: receiver?.arrivals(),
        });
        verdicts.set(
          name,
          status === "skipped"
            ? { name, description, status, reason }
            : { name, description, status, reason, coverage: undefined },
        );
      } else {
        const coverage = describeCoverage(name, assertions.get(name) ?? 0, tallies.get(name), provider.statuses.table);
        verdicts.set(
          name,
          coverage.missing.length === 0
            ? { name, description, status: "passed", properties: [...by], coverage }
            : {
                name,
                description,
                status: "not_exercised",
                reason: `no ${coverage.missing.join(" or ")}-class final status came up (${coverage.summary})`,
                coverage,
              },
        );
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
  const requireCoverage = options.requireCoverage === true;
  return {
    ok: isRunOk(checks, errors, requireCoverage),
    seed,
    target: describeTarget(options, target),
    profile,
    runsPerProperty: runs,
    modelRuns,
    durationMs: Date.now() - started,
    checks,
    properties: propertyReports,
    errors,
    spent: budget.spentCents() / 100,
    budget: options.budget,
    requireCoverage,
    timings: timings.totals(),
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

async function startReceiver(
  options: ContractOptions,
  target: ResolvedTarget,
  provider: CompiledProfile,
  profile: Profile,
): Promise<WebhookReceiver | undefined> {
  // The interface shows no signing (§6): under `interface` a profile naming no scheme means unsigned deliveries.
  const verifier = profile === "interface" && !provider.given.signing ? UNSIGNED.verifier(undefined) : undefined;
  const common = { provider, ...(verifier === undefined ? {} : { verifier }) };
  if (options.webhookListen !== undefined && options.webhookSecret !== undefined) {
    const { host, port } = parseListen(options.webhookListen);
    return startWebhookReceiver({ ...common, secret: options.webhookSecret, host, port });
  }
  if (target.kind === "in_process") {
    // The in-process simulator can reach a local receiver, and the harness subscribes each fresh customer to it.
    const secret = `whsec_${randomBytes(32).toString("base64")}`;
    return startWebhookReceiver({ ...common, secret, host: "127.0.0.1", port: 0 });
  }
  return undefined;
}

function parseListen(text: string): { host: string; port: number } {
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

/** The default wallet's balance in cents, read once before a run; undefined when it cannot be read. */
async function startingBalanceCents(
  client: HttpClient,
  token: string,
  provider: CompiledProfile,
): Promise<number | undefined> {
  const outcome = await client.send({
    method: "GET",
    path: "/v1/balance",
    headers: { authorization: `Bearer ${token}`, accept: "application/json" },
  });
  if (outcome.kind !== "response" || outcome.status !== 200) return undefined;
  return provider.readBalanceCents(outcome.json);
}
