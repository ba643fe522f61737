/**
 * `airtime-harness handler-check`: property-based tests of an integrator's
 * webhook handler. Exit 0 when the handler kept every rule, 1 when a rule
 * broke (the shrunk timeline is printed), 2 for a usage error or a setup
 * problem (the app's state cannot be read).
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { z } from "zod";
import { readableIssue } from "../contract/readable-issues.ts";
import { formatProfileIssues, loadProviderProfile } from "../contract/provider-profile/load.ts";
import type { DeliveryDialect } from "../handler-check/delivery-dialect.ts";
import {
  HANDLER_CHECK_DEFAULTS,
  HandlerCheckOptionsSchema,
  type HandlerCheckSettings,
  WHSEC_RULE,
} from "../handler-check/handler-check-settings.ts";
import { startRun } from "../report/json-report.ts";
import { type ReportFiles, reportFilesError, writeReports } from "../report/outputs.ts";
import { isWebhookSecret } from "../webhooks/signing.ts";
import { blameFlag, type Flag, readFlags } from "./flag-table.ts";

/** The flag table, in the sections `--help` shows. Report flags set `report.*`, which is no check option. */
export const HANDLER_CHECK_FLAGS: readonly { readonly section: string; readonly flags: readonly Flag[] }[] = [
  {
    section: "the handler",
    flags: [
      { name: "handler", value: "URL", path: ["handler"], help: "where the handler receives webhooks" },
      {
        name: "secret",
        env: "AIRTIME_WEBHOOK_SECRET",
        value: "whsec_…",
        path: ["secret"],
        help: "the secret it verifies with (whsec_… unless --provider signs with HMAC)",
      },
      {
        name: "provider",
        value: "FILE",
        path: ["provider"],
        help: "a provider profile: deliveries shaped and signed in its dialect, its status words understood",
      },
      {
        name: "state",
        value: "URL",
        path: ["state"],
        help: "what the app believes about an order: a URL with {reference}, answering JSON (404: unknown)",
      },
      {
        name: "state-command",
        value: "CMD",
        path: ["stateCommand"],
        help: "or a shell command printing that JSON ({reference} is the order's reference)",
      },
      {
        name: "state-status",
        value: "POINTER",
        path: ["stateStatus"],
        help: "JSON pointer to the status code in that JSON (default /status)",
      },
      {
        name: "effects",
        value: "POINTER",
        path: ["effects"],
        help: "JSON pointer to a count of side effects applied (credits): enables idempotence",
      },
    ],
  },
  {
    section: "handlers that look orders up",
    flags: [
      {
        name: "reconcile",
        value: "URL",
        path: ["reconcile"],
        help: "POSTed {references} after a sequence; with it some final webhooks are withheld",
      },
      {
        name: "simulator-port",
        value: "PORT",
        path: ["simulatorPort"],
        help: "where the simulator's lookup listens (default any free port, printed)",
      },
      {
        name: "simulator-token",
        env: "AIRTIME_SIM_TOKEN",
        value: "TOKEN",
        path: ["simulatorToken"],
        help: "the bearer token the handler looks orders up with (default generated, printed)",
      },
    ],
  },
  {
    section: "runs and replay",
    flags: [
      {
        name: "runs",
        value: "N",
        path: ["runs"],
        help: `generated delivery sequences (default ${HANDLER_CHECK_DEFAULTS.runs})`,
      },
      { name: "seed", value: "S", path: ["seed"], help: "fast-check seed (default random; printed)" },
      { name: "path", value: "P", path: ["path"], help: "replay one failure (with --seed, as printed)" },
      {
        name: "timeout",
        value: "DURATION",
        path: ["timeoutMs"],
        help: "how long the handler may take to answer (default 10s)",
      },
      {
        name: "max-orders",
        value: "N",
        path: ["maxOrders"],
        help: `most orders in one sequence (default ${HANDLER_CHECK_DEFAULTS.maxOrders})`,
      },
    ],
  },
  {
    section: "reports",
    flags: [
      { name: "json", value: "FILE", path: ["report", "json"], help: "write the report as JSON" },
      { name: "junit", value: "FILE", path: ["report", "junit"], help: "write JUnit XML, one test case per rule" },
      {
        name: "html",
        value: "FILE",
        path: ["report", "html"],
        help: "write one self-contained HTML page: the rules, the timeline with curl lines, the replay",
      },
    ],
  },
];

const FLAGS = HANDLER_CHECK_FLAGS.flatMap((section) => section.flags);

function usageLine(flag: Flag): string {
  const left = `--${flag.name}${flag.value === undefined ? "" : ` ${flag.value}`}`;
  const help = flag.env === undefined ? flag.help : `${flag.help} (env ${flag.env})`;
  return `  ${left.padEnd(23)}  ${help}`;
}

function usage(): string {
  return `usage: airtime-harness handler-check --handler URL --secret whsec_… --state URL [options]

Drives generated webhook sequences at your handler (duplicates, concurrent
copies, lost answers and retries, disorder, Reversed around Success, forged
and stale signatures, bursts after downtime) from an in-process simulator on
a virtual clock, and judges the handler by what its app ends up believing.

${HANDLER_CHECK_FLAGS.map(({ section, flags }) => `${section}:\n${flags.map(usageLine).join("\n")}`).join("\n\n")}

  -h, --help               this text

exit: 0 every rule held, 1 a rule broke (its shrunk timeline is printed),
2 usage error or an app state that cannot be read.`;
}

type Parsed =
  | { readonly ok: true; readonly settings: HandlerCheckSettings; readonly report: ReportFiles }
  | { readonly ok: false; readonly error: string };

export function parseHandlerCheckArgs(args: string[], env: NodeJS.ProcessEnv = process.env): Parsed {
  const flags = readFlags(args, env, FLAGS, { help: { type: "boolean", short: "h" } });
  if (!flags.ok) return { ok: false, error: flags.error };
  const { report, ...given } = flags.config as { report?: ReportFiles };
  for (const required of ["handler", "secret"] as const) {
    if (given[required as keyof typeof given] === undefined) {
      return {
        ok: false,
        error: `--${required} is needed${required === "secret" ? " (or AIRTIME_WEBHOOK_SECRET)" : ""}`,
      };
    }
  }
  const parsed = HandlerCheckOptionsSchema.safeParse(given);
  if (!parsed.success) {
    const issue = readableIssue(parsed.error.issues[0] as z.core.$ZodIssue);
    return { ok: false, error: blameFlag(issue, flags.sources) ?? issue.message };
  }
  const filesError = reportFilesError(report ?? {});
  if (filesError !== undefined) return { ok: false, error: filesError };
  return { ok: true, settings: parsed.data, report: report ?? {} };
}

/** The command line again, the secret as its variable, with the failure's seed and path. */
function replayCommand(args: readonly string[], seed: number, path: string): string {
  const kept: string[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string;
    const [name] = arg.split("=", 1);
    if (name === "--seed" || name === "--path" || name === "--runs" || name === "--secret") {
      if (!arg.includes("=")) index += 1;
      continue;
    }
    kept.push(/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`);
  }
  return [
    "airtime-harness handler-check",
    ...kept,
    '--secret "$AIRTIME_WEBHOOK_SECRET"',
    // parseArgs reads "--seed -5" as two flags; "--seed=-5" is one.
    seed < 0 ? `--seed=${seed}` : `--seed ${seed}`,
    `--path ${path}`,
  ].join(" ");
}

/** The dialect `--provider` names (loaded and compiled once), or undefined for our spec's. */
async function dialectOf(
  settings: HandlerCheckSettings,
): Promise<{ ok: true; dialect: DeliveryDialect | undefined } | { ok: false; error: string }> {
  if (settings.provider === undefined) return { ok: true, dialect: undefined };
  const loaded = await loadProviderProfile(settings.provider);
  if (!loaded.ok) return { ok: false, error: `--provider: ${formatProfileIssues(settings.provider, loaded.issues)}` };
  const scheme = loaded.profile.webhooks?.signing?.scheme ?? "standard-webhooks";
  if (scheme === "standard-webhooks" && !isWebhookSecret(settings.secret)) {
    return { ok: false, error: `--secret ${WHSEC_RULE} (the profile signs with Standard Webhooks)` };
  }
  const [{ compileRenderer }, { createProviderDialect }] = await Promise.all([
    import("../contract/provider-profile/render.ts"),
    import("../handler-check/delivery-dialect.ts"),
  ]);
  return { ok: true, dialect: createProviderDialect(compileRenderer(loaded.profile, { newUuid: randomUUID })) };
}

/**
 * @example
 * // airtime-harness handler-check --handler localhost:3000/webhooks/airtime --secret whsec_… \
 * //   --state 'http://localhost:3000/orders/{reference}' --effects /credits
 * process.exitCode = await handlerCheck(["--handler", url, "--secret", secret, "--state", template]);
 */
export async function handlerCheck(args: string[]): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    console.log(usage());
    return 0;
  }
  const parsed = parseHandlerCheckArgs(args);
  if (!parsed.ok) {
    console.error(
      `airtime-harness handler-check: ${parsed.error}\n\nRun \`airtime-harness handler-check --help\` for the options.`,
    );
    return 2;
  }
  // The runner pulls in the simulator and fast-check: loaded only to run, so --help stays fast.
  const [{ runHandlerCheck }, { stateSourceOf }, reports] = await Promise.all([
    import("../handler-check/check-handler.ts"),
    import("../handler-check/handler-check-settings.ts"),
    import("../handler-check/report-formats.ts"),
  ]);
  const { settings } = parsed;
  const dialect = await dialectOf(settings);
  if (!dialect.ok) {
    console.error(`airtime-harness handler-check: ${dialect.error}`);
    return 2;
  }
  const run = startRun();
  const report = await runHandlerCheck({
    dialect: dialect.dialect,
    handlerUrl: settings.handler,
    secret: settings.secret,
    state: stateSourceOf(settings),
    statusPointer: settings.stateStatus,
    effectsPointer: settings.effects,
    reconcileUrl: settings.reconcile,
    runs: settings.runs,
    seed: settings.seed,
    path: settings.path,
    timeoutMs: settings.timeoutMs,
    maxOrders: settings.maxOrders,
    simulatorPort: settings.simulatorPort,
    simulatorToken: settings.simulatorToken,
    referencePrefix: `hc-${randomBytes(3).toString("hex")}`,
    // A handler that reconciles needs to know where to look orders up.
    ...(settings.reconcile === undefined
      ? {}
      : { onStart: (sim) => console.error(`lookups: GET ${sim.url}/v1/airtime/{reference}, bearer ${sim.token}`) }),
  });
  const times = run.finish();
  const context = { replay: replayCommand(args, report.seed, report.failure?.path ?? "") };
  await writeReports(parsed.report, {
    console: () => reports.formatHandlerCheckConsole(report, context),
    json: () => reports.formatHandlerCheckJson(report, context, times),
    junit: () => reports.formatHandlerCheckJUnit(report, context),
    html: () => reports.formatHandlerCheckHtml(report, context),
  });
  if (report.error !== undefined) return 2;
  return report.failure === undefined ? 0 : 1;
}
