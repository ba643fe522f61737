/**
 * `airtime-harness contract`: the property-based contract checks against the
 * in-process simulator (no --target) or a deployment. Exit code 0 when every
 * check passed or was skipped, 1 when any check failed, 2 for a usage error
 * or a harness error (unreachable target, bad options).
 */
import { writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { parseDuration } from "../domain/timing.ts";
import { loadAccounts } from "../harness/accounts.ts";
import { describeChecks } from "../harness/checks.ts";
import type { ContractOptions } from "../harness/contract-options.ts";
import { DEFAULT_MAX_COMMANDS, DEFAULT_RUNS, DEFAULT_TIMING_MS } from "../harness/contract-options.ts";
import { isPropertyName, PROPERTY_NAMES, type PropertyName } from "../harness/property.ts";
import { formatConsoleReport } from "../harness/reporters/console-reporter.ts";
import { formatJsonReport } from "../harness/reporters/json-reporter.ts";
import { formatJUnitReport } from "../harness/reporters/junit-reporter.ts";
import { createProgressLine } from "../harness/reporters/progress.ts";
import { type BodyMapping, loadBodyMapping } from "../harness/body-mapping.ts";
import { formatCheckList, isProfile, PROFILES } from "../harness/profiles.ts";
import { isRunOk } from "../harness/report.ts";
import { runContract } from "../harness/run-contract.ts";

const OPTIONS = {
  target: { type: "string" },
  token: { type: "string" },
  "other-token": { type: "string" },
  "admin-url": { type: "string" },
  "admin-token": { type: "string" },
  timing: { type: "string" },
  checks: { type: "string" },
  "exclude-checks": { type: "string" },
  property: { type: "string" },
  runs: { type: "string" },
  seed: { type: "string" },
  path: { type: "string" },
  "max-commands": { type: "string" },
  "max-failures": { type: "string" },
  budget: { type: "string" },
  accounts: { type: "string" },
  "webhook-listen": { type: "string" },
  "webhook-secret": { type: "string" },
  "webhook-url": { type: "string" },
  "final-timeout": { type: "string" },
  "webhook-timeout": { type: "string" },
  "request-timeout": { type: "string" },
  "max-wait": { type: "string" },
  "validate-with-prism": { type: "boolean" },
  junit: { type: "string" },
  json: { type: "string" },
  quiet: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  "shared-account": { type: "boolean" },
  "require-coverage": { type: "boolean" },
  "shrink-time": { type: "string" },
  verbose: { type: "boolean" },
  profile: { type: "string" },
  mapping: { type: "string" },
  "list-checks": { type: "boolean" },
  spec: { type: "string" },
} as const;

export function contractUsage(): string {
  return `usage: airtime-harness contract [options]

Runs property-based contract checks. Without --target, against an in-process
simulator on a virtual clock; with --target, against any deployment.

target:
  --target URL             base URL of the deployment under test
  --token TOKEN            its bearer token (env AIRTIME_TOKEN)
  --other-token TOKEN      a second customer's token, for customer_isolation (env AIRTIME_OTHER_TOKEN)
  --admin-url URL          simulator admin API base URL: sim-only powers (fresh customers, clock, forced outcomes)
  --admin-token TOKEN      its token (env AIRTIME_ADMIN_TOKEN)
  --timing DURATION        pending → final delay: the in-process simulator's (default ${DEFAULT_TIMING_MS}ms),
                           or a remote simulator's on a virtual clock, making statuses predictable

selection and replay:
  --checks a,b             only these checks
  --exclude-checks c,d     all checks but these
  --property NAME          only this property (${PROPERTY_NAMES.join(", ")})
  --runs N                 runs per property (default ${DEFAULT_RUNS})
  --seed S                 fast-check seed (default random; printed in the report)
  --path P                 replay one counterexample (with --seed and --property, as printed)
  --max-commands N         longest model-based run (default ${DEFAULT_MAX_COMMANDS})
  --max-failures N         stop once N checks have failed (default: hunt for every failing check)

real deployments:
  --budget AMOUNT          most KES the run may spend, retries included; never exceeded
  --accounts FILE          the only recipient numbers the harness may use (one per line)
  --webhook-listen H:P     receive webhooks here (the target must reach it); enables the webhook checks
  --webhook-secret SECRET  the whsec_… secret the target signs with (env AIRTIME_WEBHOOK_SECRET)
  --webhook-url URL        the URL the target posts to, when not the listen address (tunnels, proxies)
  --final-timeout DUR      how long an order may stay pending before webhook checks give up (default 30s)
  --webhook-timeout DUR    how long to wait for a webhook once the order is final (default 10s; 2s in-process)
  --request-timeout DUR    per-request timeout (default 10s)
  --max-wait DUR           longest single "let time pass" wait against a real clock (default 500ms)
  --validate-with-prism    route model traffic through prism proxy spec/openapi.yaml --errors

reports:
  --junit FILE             write JUnit XML
  --json FILE              write the report as JSON
  --quiet                  no progress line
  --verbose                also print where the wall time went (search, replay, shrink, settling, webhook waits)

honesty and time:
  --shared-account         the account is shared: judge the balance by a lower bound, not exactly
  --require-coverage       a check that never met a class of case it is about (e.g. no failed order) fails the run
  --shrink-time DUR        most time spent shrinking one failure (default 10s); a failure whose replay does
                           not reproduce it is reported as observed, not shrunk

profiles:
  --profile NAME           strict (default): everything our spec decides; interface: only what the
                           interface document states (see --list-checks)
  --mapping FILE           JSON pointers to where the target keeps id, status, reference and balance
  --spec FILE              judge response bodies against the target's own OpenAPI document
  --list-checks            print every check with its profiles and exit

checks:
${describeChecks("  ")}

exit code: 0 all checks passed, skipped or not exercised, 1 a check failed (or was not exercised, with
--require-coverage), 2 usage or harness error.`;
}

type Parsed = { ok: true; options: ContractOptions } | { ok: false; error: string };

function csv(value: string | undefined): string[] | undefined {
  return value === undefined
    ? undefined
    : value
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s !== "");
}

function durationMs(flag: string, value: string | undefined): number | undefined | string {
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const parsed = parseDuration(value);
  return parsed.ok ? parsed.ms : `--${flag}: ${parsed.error}`;
}

function positiveInt(flag: string, value: string | undefined): number | undefined | string {
  if (value === undefined) return undefined;
  const n = Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : `--${flag} must be a positive integer`;
}

export async function parseContractArgs(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Parsed> {
  let values: ReturnType<
    typeof parseArgs<{ options: typeof OPTIONS; strict: true; allowPositionals: false }>
  >["values"];
  try {
    values = parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
  const numbers = {
    timing: durationMs("timing", values.timing),
    finalTimeout: durationMs("final-timeout", values["final-timeout"]),
    webhookTimeout: durationMs("webhook-timeout", values["webhook-timeout"]),
    requestTimeout: durationMs("request-timeout", values["request-timeout"]),
    maxWait: durationMs("max-wait", values["max-wait"]),
    shrinkTime: durationMs("shrink-time", values["shrink-time"]),
    runs: positiveInt("runs", values.runs),
    maxCommands: positiveInt("max-commands", values["max-commands"]),
    maxFailures: positiveInt("max-failures", values["max-failures"]),
  };
  for (const value of Object.values(numbers)) if (typeof value === "string") return { ok: false, error: value };
  const num = (v: number | string | undefined) => v as number | undefined;
  let seed: number | undefined;
  if (values.seed !== undefined) {
    seed = Number(values.seed);
    if (!Number.isSafeInteger(seed)) return { ok: false, error: "--seed must be an integer" };
  }
  let budget: number | undefined;
  if (values.budget !== undefined) {
    budget = Number(values.budget);
    if (!(Number.isFinite(budget) && budget >= 0)) return { ok: false, error: "--budget must be an amount ≥ 0 (KES)" };
  }
  let properties: PropertyName[] | undefined;
  if (values.property !== undefined) {
    const names = csv(values.property) ?? [];
    const unknown = names.filter((name) => !isPropertyName(name));
    if (unknown.length > 0)
      return { ok: false, error: `unknown property ${unknown.join(", ")} (known: ${PROPERTY_NAMES.join(", ")})` };
    properties = names as PropertyName[];
  }
  let accounts: readonly string[] | undefined;
  if (values.accounts !== undefined) {
    const loaded = await loadAccounts(values.accounts);
    if (!loaded.ok) return { ok: false, error: `--accounts: ${loaded.error}` };
    accounts = loaded.recipients.map((r) => r.account);
  }
  const token = values.token ?? (values.target === undefined ? undefined : env.AIRTIME_TOKEN);
  const otherToken = values["other-token"] ?? (values.target === undefined ? undefined : env.AIRTIME_OTHER_TOKEN);
  const adminToken = values["admin-token"] ?? (values["admin-url"] === undefined ? undefined : env.AIRTIME_ADMIN_TOKEN);
  const webhookSecret =
    values["webhook-secret"] ?? (values["webhook-listen"] === undefined ? undefined : env.AIRTIME_WEBHOOK_SECRET);
  if (values.target !== undefined && token === undefined)
    return { ok: false, error: "--target needs --token (or AIRTIME_TOKEN)" };
  if (values["admin-url"] !== undefined && adminToken === undefined) {
    return { ok: false, error: "--admin-url needs --admin-token (or AIRTIME_ADMIN_TOKEN)" };
  }
  const profile = values.profile;
  if (profile !== undefined && !isProfile(profile)) {
    return { ok: false, error: `--profile must be one of ${PROFILES.join(", ")}` };
  }
  let mapping: BodyMapping | undefined;
  if (values.mapping !== undefined) {
    const loaded = await loadBodyMapping(values.mapping);
    if (!loaded.ok) return { ok: false, error: `--mapping: ${loaded.error}` };
    mapping = loaded.mapping;
  }
  const checks = csv(values.checks);
  const excludeChecks = csv(values["exclude-checks"]);
  const options: ContractOptions = {
    ...(values.target === undefined ? {} : { target: values.target }),
    ...(token === undefined ? {} : { token }),
    ...(otherToken === undefined ? {} : { otherToken }),
    ...(values["admin-url"] === undefined ? {} : { adminUrl: values["admin-url"] }),
    ...(adminToken === undefined ? {} : { adminToken }),
    ...(num(numbers.timing) === undefined ? {} : { timingMs: num(numbers.timing) }),
    ...(checks === undefined ? {} : { checks }),
    ...(excludeChecks === undefined ? {} : { excludeChecks }),
    ...(properties === undefined ? {} : { properties }),
    ...(num(numbers.runs) === undefined ? {} : { runs: num(numbers.runs) }),
    ...(seed === undefined ? {} : { seed }),
    ...(values.path === undefined ? {} : { path: values.path }),
    ...(num(numbers.maxCommands) === undefined ? {} : { maxCommands: num(numbers.maxCommands) }),
    ...(num(numbers.maxFailures) === undefined ? {} : { maxFailures: num(numbers.maxFailures) }),
    ...(budget === undefined ? {} : { budget }),
    ...(accounts === undefined ? {} : { accounts, accountsFile: values.accounts }),
    ...(values["webhook-listen"] === undefined ? {} : { webhookListen: values["webhook-listen"] }),
    ...(webhookSecret === undefined ? {} : { webhookSecret }),
    ...(values["webhook-url"] === undefined ? {} : { webhookUrl: values["webhook-url"] }),
    ...(num(numbers.finalTimeout) === undefined ? {} : { finalTimeoutMs: num(numbers.finalTimeout) }),
    ...(num(numbers.webhookTimeout) === undefined ? {} : { webhookTimeoutMs: num(numbers.webhookTimeout) }),
    ...(num(numbers.requestTimeout) === undefined ? {} : { requestTimeoutMs: num(numbers.requestTimeout) }),
    ...(num(numbers.maxWait) === undefined ? {} : { maxWaitMs: num(numbers.maxWait) }),
    ...(values["validate-with-prism"] === true ? { validateWithPrism: true } : {}),
    ...(values["shared-account"] === true ? { sharedAccount: true } : {}),
    ...(values["require-coverage"] === true ? { requireCoverage: true } : {}),
    ...(num(numbers.shrinkTime) === undefined ? {} : { shrinkTimeMs: num(numbers.shrinkTime) }),
    ...(profile === undefined ? {} : { profile }),
    ...(mapping === undefined ? {} : { mapping, mappingFile: values.mapping }),
    ...(values.spec === undefined ? {} : { specFile: values.spec }),
  };
  return { ok: true, options };
}

/**
 * @example
 * // airtime-harness contract --runs 50
 * process.exitCode = await contract(["--runs", "50"]);
 */
export async function contract(args: string[]): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    console.log(contractUsage());
    return 0;
  }
  if (args.includes("--list-checks")) {
    console.log(formatCheckList());
    return 0;
  }
  const parsed = await parseContractArgs(args);
  if (!parsed.ok) {
    console.error(
      `airtime-harness contract: ${parsed.error}\n\nRun \`airtime-harness contract --help\` for the options.`,
    );
    return 2;
  }
  const { values } = parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false });
  const progress = values.quiet === true ? undefined : createProgressLine(process.stderr);
  let report: Awaited<ReturnType<typeof runContract>>;
  try {
    report = await runContract({
      ...parsed.options,
      ...(progress === undefined ? {} : { onProgress: (event) => progress.update(event) }),
    });
  } catch (error) {
    progress?.done();
    console.error(`airtime-harness contract: ${(error as Error).message}`);
    return 2;
  }
  progress?.done();
  console.log(formatConsoleReport(report, { verbose: values.verbose === true }));
  if (values.junit !== undefined) await writeFile(values.junit, formatJUnitReport(report));
  if (values.json !== undefined) await writeFile(values.json, formatJsonReport(report));
  if (!isRunOk(report.checks, [], report.requireCoverage)) return 1;
  return report.errors.length > 0 ? 2 : 0;
}
