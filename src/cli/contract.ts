/**
 * `airtime-harness contract`: the property-based contract checks against the
 * in-process simulator (no --target) or a deployment. Exit code 0 when every
 * check passed, was skipped or not exercised, 1 when any check failed (or was
 * not exercised, with --require-coverage), 2 for a usage error or a harness
 * error (unreachable target, bad options).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { z } from "zod";
import { readableIssue } from "../contract/readable-issues.ts";
import { loadAccounts } from "../harness/accounts.ts";
import { formatProfileIssues, loadProviderProfile } from "../contract/provider-profile/load.ts";
import { loadMappingFile, MAPPING_DEPRECATION } from "../harness/mapping-file.ts";
import { describeChecks } from "../harness/checks.ts";
import { type ContractOptions, ContractOptionsSchema } from "../harness/contract-options.ts";
import { CONTRACT_DEFAULTS } from "../harness/contract-settings.ts";
import { PROPERTY_NAMES } from "../harness/property.ts";
import { type ContractReport, isRunOk } from "../harness/report.ts";
import { blameFlag, type Flag, missingCompanion, readFlags } from "./flag-table.ts";
import { startRun } from "../report/json-report.ts";
import { reportFilesError, writeReports } from "../report/outputs.ts";
import { coloursFor } from "../report/console.ts";

/** The flag table, in the sections `--help` shows. Report flags set `report.*`, which is no run option. */
export const CONTRACT_FLAGS: readonly { readonly section: string; readonly flags: readonly Flag[] }[] = [
  {
    section: "target",
    flags: [
      {
        name: "target",
        value: "URL",
        path: ["target"],
        help: "base URL of the deployment under test (with --token or --token-command)",
      },
      {
        name: "token",
        env: "AIRTIME_TOKEN",
        envWith: "target",
        value: "TOKEN",
        path: ["token"],
        help: "its bearer token",
      },
      {
        name: "token-command",
        value: "CMD",
        path: ["tokenCommand"],
        help: "a command that prints the bearer token; run again when a token that\nworked gets 401 (it expired)",
      },
      {
        name: "other-token",
        env: "AIRTIME_OTHER_TOKEN",
        envWith: "target",
        value: "TOKEN",
        path: ["otherToken"],
        help: "a second customer's token, for customer_isolation (under interface, also an\ninsufficient balance: give one with less than the largest order)",
      },
      {
        name: "admin-url",
        value: "URL",
        path: ["adminUrl"],
        requires: "admin-token",
        help: "simulator admin API base URL: sim-only powers (fresh customers, clock, forced outcomes)",
      },
      {
        name: "admin-token",
        env: "AIRTIME_ADMIN_TOKEN",
        envWith: "admin-url",
        value: "TOKEN",
        path: ["adminToken"],
        help: "its token",
      },
      {
        name: "timing",
        value: "DURATION",
        path: ["timingMs"],
        help: `pending → final delay: the in-process simulator's (default ${CONTRACT_DEFAULTS.timingMs}ms),\nor a remote simulator's on a virtual clock, making statuses predictable`,
      },
    ],
  },
  {
    section: "selection and replay",
    flags: [
      { name: "checks", value: "a,b", path: ["checks"], help: "only these checks" },
      { name: "exclude-checks", value: "c,d", path: ["excludeChecks"], help: "all checks but these" },
      {
        name: "property",
        value: "NAME",
        path: ["properties"],
        help: `only this property (${PROPERTY_NAMES.join(", ")})`,
      },
      { name: "runs", value: "N", path: ["runs"], help: `runs per property (default ${CONTRACT_DEFAULTS.runs})` },
      { name: "seed", value: "S", path: ["seed"], help: "fast-check seed (default random; printed in the report)" },
      {
        name: "path",
        value: "P",
        path: ["path"],
        help: "replay one counterexample (with --seed and --property, as printed)",
      },
      {
        name: "max-commands",
        value: "N",
        path: ["maxCommands"],
        help: `longest model-based run (default ${CONTRACT_DEFAULTS.maxCommands})`,
      },
      {
        name: "max-failures",
        value: "N",
        path: ["maxFailures"],
        help: "stop once N checks have failed (default: hunt for every failing check)",
      },
    ],
  },
  {
    section: "real deployments",
    flags: [
      {
        name: "budget",
        value: "AMOUNT",
        path: ["budget"],
        help: "most KES the run may spend, retries included; never exceeded",
      },
      {
        name: "accounts",
        value: "FILE",
        path: ["accountsFile"],
        help: "the only recipient numbers the harness may use (one per line)",
      },
      {
        name: "webhook-listen",
        value: "H:P",
        path: ["webhookListen"],
        help: "receive webhooks here (the target must reach it); enables the webhook checks",
      },
      {
        name: "webhook-secret",
        env: "AIRTIME_WEBHOOK_SECRET",
        envWith: "webhook-listen",
        value: "SECRET",
        path: ["webhookSecret"],
        help: "the whsec_… secret the target signs with",
      },
      {
        name: "webhook-url",
        value: "URL",
        path: ["webhookUrl"],
        help: "the URL the target posts to, when not the listen address (tunnels, proxies)",
      },
      {
        name: "final-timeout",
        value: "DUR",
        path: ["finalTimeoutMs"],
        help: "how long an order may stay pending before webhook checks give up (default 30s)",
      },
      {
        name: "webhook-timeout",
        value: "DUR",
        path: ["webhookTimeoutMs"],
        help: "how long to wait for a webhook once the order is final (default 10s; 2s in-process)",
      },
      { name: "request-timeout", value: "DUR", path: ["requestTimeoutMs"], help: "per-request timeout (default 10s)" },
      {
        name: "max-wait",
        value: "DUR",
        path: ["maxWaitMs"],
        help: 'longest single "let time pass" wait against a real clock (default 500ms)',
      },
      {
        name: "validate-with-prism",
        path: ["validateWithPrism"],
        help: "route model traffic through prism proxy spec/openapi.yaml --errors",
      },
    ],
  },
  {
    section: "honesty and time",
    flags: [
      {
        name: "shared-account",
        path: ["sharedAccount"],
        help: "the account is shared: judge the balance by a lower bound, not exactly",
      },
      {
        name: "require-coverage",
        path: ["requireCoverage"],
        help: "a check that never met a class of case it is about (e.g. no failed order) fails the run",
      },
      {
        name: "save-run",
        value: "FILE",
        path: ["saveRun"],
        help: "write the run's orders, keys and payloads (never the token) to FILE, for --recheck",
      },
      {
        name: "recheck",
        value: "FILE",
        path: ["recheck"],
        help: "instead of a run: replay every key and re-read every order of a saved run\n(same --target and token flags), e.g. a day later from a scheduled job",
      },
      {
        name: "late-audit",
        value: "DUR",
        path: ["lateAuditMs"],
        help: "after the run, look every order up again and replay every key once the newest\norder is DUR past final (default 5s; 0 turns it off)",
      },
      {
        name: "shrink-time",
        value: "DUR",
        path: ["shrinkTimeMs"],
        help: "most time spent shrinking one failure (default 10s); a failure whose replay does\nnot reproduce it is reported as observed, not shrunk",
      },
    ],
  },
  {
    section: "profiles",
    flags: [
      {
        name: "strictness",
        value: "NAME",
        path: ["profile"],
        help: "strict (default): everything our spec decides; interface: only what the\ninterface document states (see --list-checks)",
      },
      { name: "profile", value: "NAME", path: ["profile"], help: "the older name of --strictness, still read" },
      {
        name: "provider",
        value: "FILE",
        path: ["providerFile"],
        help: "the provider profile (YAML or JSON): where the target keeps every field, its\nstatuses, errors, webhooks and domain (docs/provider-profiles.md)",
      },
      {
        name: "mapping",
        value: "FILE",
        path: ["mappingFile"],
        help: "deprecated: JSON pointers, read as a provider profile (use --provider)",
      },
      {
        name: "spec",
        value: "FILE",
        path: ["specFile"],
        help: "judge response bodies against the target's own OpenAPI document (and, when the\nprofile has no domain, draw orders inside the one its request schema states)",
      },
      {
        name: "list-checks",
        path: ["report", "listChecks"],
        help: "print every check with the strictness levels that judge it, and exit",
      },
    ],
  },
  {
    section: "reports",
    flags: [
      { name: "junit", value: "FILE", path: ["report", "junit"], help: "write JUnit XML" },
      { name: "json", value: "FILE", path: ["report", "json"], help: "write the report as JSON" },
      {
        name: "html",
        value: "FILE",
        path: ["report", "html"],
        help: "write one self-contained HTML page: verdicts, failures with steps, diff and curl",
      },
      {
        name: "emit-test",
        value: "DIR",
        path: ["report", "emitTest"],
        help: "write each failure as a vitest file that replays it (or run one: replay FILE)",
      },
      { name: "quiet", path: ["report", "quiet"], help: "no progress line" },
      {
        name: "verbose",
        path: ["report", "verbose"],
        help: "also print where the wall time went (search, replay, shrink, settling, webhook waits)",
      },
    ],
  },
];

const FLAGS = CONTRACT_FLAGS.flatMap((section) => section.flags);

function usageLine(flag: Flag): string {
  const left = `--${flag.name}${flag.value === undefined ? "" : ` ${flag.value}`}`;
  const help = flag.env === undefined ? flag.help : `${flag.help} (env ${flag.env})`;
  return `  ${left.padEnd(23)}  ${help.replaceAll("\n", `\n${" ".repeat(27)}`)}`;
}

export function contractUsage(): string {
  return `usage: airtime-harness contract [options]

Runs property-based contract checks. Without --target, against an in-process
simulator on a virtual clock; with --target, against any deployment.

${CONTRACT_FLAGS.map(({ section, flags }) => `${section}:\n${flags.map(usageLine).join("\n")}`).join("\n\n")}

checks:
${describeChecks("  ")}

exit code: 0 all checks passed, skipped or not exercised, 1 a check failed (or was not exercised, with
--require-coverage), 2 usage or harness error.`;
}

interface ReportOptions {
  readonly junit?: string;
  readonly json?: string;
  readonly html?: string;
  readonly emitTest?: string;
  readonly quiet?: boolean;
  readonly verbose?: boolean;
  readonly listChecks?: boolean;
}

/** `report` is absent when no report flag was given. */
type Parsed =
  | { ok: true; options: ContractOptions; report?: ReportOptions; notices?: readonly string[] }
  | { ok: false; error: string };

/** Flags and environment → run options (parsed once by `ContractOptionsSchema`) and report files. */
export async function parseContractArgs(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Parsed> {
  const flags = readFlags(args, env, FLAGS, { help: { type: "boolean", short: "h" } });
  if (!flags.ok) return { ok: false, error: flags.error };
  const { report, ...given } = flags.config as { report?: ReportOptions };
  const parsed = ContractOptionsSchema.strict().safeParse(given);
  if (!parsed.success) {
    const issue = readableIssue(parsed.error.issues[0] as z.core.$ZodIssue);
    return { ok: false, error: blameFlag(issue, flags.sources) ?? issue.message };
  }
  const missing = missingCompanion(given, flags.sources, FLAGS);
  if (missing !== undefined) return { ok: false, error: missing };
  const credentials = given as { target?: unknown; token?: unknown; tokenCommand?: unknown };
  if (credentials.target !== undefined && credentials.token === undefined && credentials.tokenCommand === undefined) {
    return { ok: false, error: "--target needs --token (or AIRTIME_TOKEN) or --token-command" };
  }
  let options: ContractOptions = parsed.data;
  const notices: string[] = [];
  const files = report === undefined ? {} : { report };
  if (options.accountsFile !== undefined) {
    const loaded = await loadAccounts(options.accountsFile);
    if (!loaded.ok) return { ok: false, error: `--accounts: ${loaded.error}` };
    options = { ...options, accounts: loaded.recipients.map((r) => r.account) };
  }
  if (options.providerFile !== undefined && options.mappingFile !== undefined) {
    return { ok: false, error: "--provider and --mapping cannot be combined: --mapping is the deprecated form" };
  }
  if (options.providerFile !== undefined) {
    const loaded = await loadProviderProfile(options.providerFile);
    if (!loaded.ok)
      return { ok: false, error: `--provider:\n${formatProfileIssues(options.providerFile, loaded.issues)}` };
    options = { ...options, provider: loaded.profile };
  }
  if (options.mappingFile !== undefined) {
    const loaded = await loadMappingFile(options.mappingFile);
    if (!loaded.ok) return { ok: false, error: `--mapping: ${loaded.error}` };
    options = { ...options, provider: loaded.profile };
    notices.push(MAPPING_DEPRECATION);
  }
  return { ok: true, options, ...(notices.length === 0 ? {} : { notices }), ...files };
}

async function loadReporters() {
  const [{ formatConsoleReport }, { formatJsonReport }, { formatJUnitReport }, { formatHtmlReport }] =
    await Promise.all([
      import("../harness/reporters/console-reporter.ts"),
      import("../harness/reporters/json-reporter.ts"),
      import("../harness/reporters/junit-reporter.ts"),
      import("../harness/reporters/html-reporter.ts"),
    ]);
  return { formatConsoleReport, formatJsonReport, formatJUnitReport, formatHtmlReport };
}

/** `--emit-test DIR`: one vitest file per failed check, named after it. */
async function emitTests(dir: string, report: ContractReport, options: ContractOptions): Promise<void> {
  const { emittedFailureOf, emittedFileName, formatEmittedTest } = await import("../harness/emit-test.ts");
  const failures = report.checks.flatMap((check) => (check.status === "failed" ? [check.failure] : []));
  if (failures.length === 0) return;
  await mkdir(dir, { recursive: true });
  for (const failure of failures) {
    const file = join(dir, emittedFileName(failure.check));
    await writeFile(file, formatEmittedTest(emittedFailureOf(failure, options)));
    console.error(`airtime-harness contract: wrote ${file} (replay: airtime-harness replay ${file})`);
  }
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
  const parsed = await parseContractArgs(args);
  if (!parsed.ok) {
    console.error(
      `airtime-harness contract: ${parsed.error}\n\nRun \`airtime-harness contract --help\` for the options.`,
    );
    return 2;
  }
  for (const notice of parsed.notices ?? []) console.error(`airtime-harness contract: ${notice}`);
  const files = parsed.report ?? {};
  const reportFiles = { junit: files.junit, json: files.json, html: files.html };
  const filesError = reportFilesError(reportFiles);
  if (filesError !== undefined) {
    console.error(`airtime-harness contract: ${filesError}`);
    return 2;
  }
  if (files.listChecks === true) {
    const { formatCheckList } = await import("../harness/strictness.ts");
    console.log(formatCheckList());
    return 0;
  }
  // The runner pulls in the simulator, fast-check and every property: loaded only to run, so --help stays fast.
  const [{ runContract }, { createProgressLine }, reporters] = await Promise.all([
    import("../harness/run-contract.ts"),
    import("../harness/reporters/progress.ts"),
    loadReporters(),
  ]);
  const progress = files.quiet === true ? undefined : createProgressLine(process.stderr);
  const run = startRun();
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
  const times = run.finish();
  const paint = coloursFor(process.stdout);
  await writeReports(reportFiles, {
    console: () => reporters.formatConsoleReport(report, { verbose: files.verbose === true, paint }),
    junit: () => reporters.formatJUnitReport(report),
    json: () => reporters.formatJsonReport(report, times),
    html: () => reporters.formatHtmlReport(report),
  });
  if (files.emitTest !== undefined) await emitTests(files.emitTest, report, parsed.options);
  if (!isRunOk(report.checks, [], report.requireCoverage)) return 1;
  return report.errors.length > 0 ? 2 : 0;
}
