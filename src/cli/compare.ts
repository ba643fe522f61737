/**
 * `airtime-harness compare`: how faithfully the simulator imitates a target.
 * The same seeded sequences go to the target and to an in-process simulator
 * speaking the same provider profile; the report lists each divergence under
 * its rule, with both sides' evidence, and a fidelity score per operation.
 * Exit code 0, or 1 when the overall score is below --fail-under; 2 for a
 * usage error or a target that cannot be reached.
 */
import { formatProfileIssues, loadProviderProfile } from "../contract/provider-profile/load.ts";
import type { ProviderProfile } from "../contract/provider-profile/schema.ts";
import { writeCalibration } from "../compare/calibrate.ts";
import { formatCompareReport } from "../compare/console-report.ts";
import { formatCompareHtml } from "../compare/html-report.ts";
import { formatCompareJson } from "../compare/json-report.ts";
import { createCompareProgress } from "../compare/progress.ts";
import { type CompareReport, runCompare } from "../compare/run-compare.ts";
import { type RunTimes, startRun } from "../report/json-report.ts";
import { reportFilesError, writeReports } from "../report/outputs.ts";
import { loadSimulatorConfig } from "../simulator/config.ts";
import type { SimulatorOptions } from "../simulator/simulator-options.ts";
import {
  COMPARE_RUN_DEFAULTS,
  compareRunFlags,
  openTargetWebhooks,
  WEBHOOK_PARSE_OPTIONS,
  WEBHOOK_USAGE,
  readCompareFlags,
  safetyUsage,
} from "./compare-settings.ts";

export const COMPARE_USAGE = `usage: airtime-harness compare --target URL --token TOKEN [options]

Sends the same seeded sequences to the target and to an in-process simulator
speaking the same provider profile, and reports every difference by rule.

options:
  --target URL          base URL of the deployment to compare (required)
  --token TOKEN         its bearer token (or AIRTIME_TOKEN) (required)
  --provider FILE       the provider profile both sides are read with (default: our spec)
  --seed N              seed of the generated sequences (default: random, printed)
  --runs N              sequences to send (default ${COMPARE_RUN_DEFAULTS.runs})
  --settle DURATION     how long an order may stay pending, e.g. 30s (default ${COMPARE_RUN_DEFAULTS.settle})
  --sim-config FILE     settings of the simulator compared with (a serve --config file)
  --calibrate FILE      write a simulator config fitted to the target (serve --config FILE)
  --fail-under SCORE    exit 1 when the overall fidelity is below SCORE percent
${WEBHOOK_USAGE}
  --json FILE           write the report as JSON (spec/compare-report.schema.json)
  --html FILE           write one self-contained HTML page: rules, figures, divergent sequences
  -h, --help            this text

real deployments (as in contract):
${safetyUsage()}

exit status: 0 compared, 1 fidelity below --fail-under, 2 usage error or target unreachable.`;

function usageError(message: string): number {
  console.error(`airtime-harness compare: ${message}\n\n${COMPARE_USAGE}`);
  return 2;
}

async function loadProvider(file: string | undefined): Promise<ProviderProfile | undefined | "bad"> {
  if (file === undefined) return undefined;
  const loaded = await loadProviderProfile(file);
  if (loaded.ok) return loaded.profile;
  console.error(formatProfileIssues(file, loaded.issues));
  return "bad";
}

/** The exit code a finished comparison earns. */
export function compareExitCode(report: CompareReport, failUnder: number | undefined): number {
  if (failUnder === undefined) return 0;
  return (report.scores.overall ?? 0) < failUnder ? 1 : 0;
}

/** compare's own options; the safety flags it shares with `contract` come from compare-settings.ts. */
type CompareValues = Partial<Record<string, string>> & { readonly help?: boolean };

export async function compare(args: string[]): Promise<number> {
  const parsed = await readCompareFlags<CompareValues>(args, process.env, {
    target: { type: "string" },
    token: { type: "string" },
    provider: { type: "string" },
    seed: { type: "string" },
    runs: { type: "string" },
    settle: { type: "string" },
    "sim-config": { type: "string" },
    "fail-under": { type: "string" },
    calibrate: { type: "string" },
    json: { type: "string" },
    html: { type: "string" },
    ...WEBHOOK_PARSE_OPTIONS,
    help: { type: "boolean", short: "h" },
  });
  if (!parsed.ok) return usageError(parsed.error);
  const { values, safety } = parsed;
  if (values.help === true) {
    console.log(COMPARE_USAGE);
    return 0;
  }
  const run = compareRunFlags(values, process.env);
  if (typeof run === "string") return usageError(run);
  const filesError = reportFilesError({ json: values.json, html: values.html });
  if (filesError !== undefined) return usageError(filesError);
  const { target, token, seed, runs, settleMs, failUnder } = run;
  const provider = await loadProvider(values.provider);
  if (provider === "bad") return 2;
  let reference: SimulatorOptions | undefined;
  try {
    reference = values["sim-config"] === undefined ? undefined : await loadSimulatorConfig(values["sim-config"]);
  } catch (error) {
    console.error(`airtime-harness compare: --sim-config: ${(error as Error).message}`);
    return 2;
  }
  const webhooks = await openTargetWebhooks(values, process.env, provider);
  if (!webhooks.ok) return usageError(webhooks.error);
  const { recorder } = webhooks;
  if (recorder !== undefined) {
    console.log(
      `receiving the target's webhooks at ${recorder.url}${webhooks.postTo ? ` (posted to ${webhooks.postTo})` : ""}`,
    );
  }
  let report: CompareReport;
  const started = startRun();
  const progress = createCompareProgress(process.stderr);
  try {
    report = await runCompare({
      target,
      token,
      provider,
      seed,
      runs,
      settleMs,
      reference,
      safety,
      targetWebhooks: recorder,
      onProgress: (event) => progress.update(event),
    });
  } catch (error) {
    progress.done();
    console.error(`airtime-harness compare: cannot compare with ${target}: ${(error as Error).message}`);
    return 2;
  } finally {
    await recorder?.close();
  }
  progress.done();
  await writeOutputs(values, report, provider, started.finish());
  return compareExitCode(report, failUnder);
}

/** The console report, then the files the flags ask for: JSON, HTML, a calibrated config. */
async function writeOutputs(
  values: CompareValues,
  report: CompareReport,
  provider: ProviderProfile | undefined,
  times: RunTimes,
): Promise<void> {
  await writeReports(
    { json: values.json, html: values.html },
    {
      console: () => formatCompareReport(report),
      json: () => formatCompareJson(report, times),
      html: () => formatCompareHtml(report),
    },
  );
  if (values.calibrate !== undefined) {
    const { config, leftOut } = await writeCalibration(values.calibrate, {
      target: report.targetSide,
      providerFile: values.provider,
      provider,
    });
    for (const name of leftOut) console.log(`not calibrated: the final status ${name} has no simulator status`);
    console.log(
      `\nwrote ${values.calibrate}: ${JSON.stringify(config)}; run airtime-harness serve --config ${values.calibrate}`,
    );
  }
}
