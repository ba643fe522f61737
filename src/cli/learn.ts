/**
 * `airtime-harness learn --target URL --token T --out DIR`: from a sandbox
 * to a faithful twin in one command. Probes the target (and reads its
 * OpenAPI document when given) for the provider profile, then compares the
 * target with a simulator speaking that profile and calibrates the timing
 * and outcome mix, and writes `DIR/provider.yaml` and `DIR/simulator.json`:
 * `serve --config DIR/simulator.json` is the twin. Prints every request the
 * probe sends; writes nothing but those two files; spends at most --budget,
 * probe and comparison together.
 */
import { access, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { parseDuration } from "../contract/duration.ts";
import { formatProfileIssues, loadProviderProfile } from "../contract/provider-profile/load.ts";
import { writeCalibration } from "../compare/calibrate.ts";
import { runCompare } from "../compare/run-compare.ts";
import { DEFAULT_ACCOUNTS } from "../harness/accounts.ts";
import { parseListen } from "../harness/listen-address.ts";
import { combineInferences } from "../learn/combine-inferences.ts";
import { inferFromTarget } from "../learn/from-target.ts";
import { profileYaml } from "../learn/profile-yaml.ts";
import { createCompareProgress } from "../compare/progress.ts";
import { inferenceFromDocument } from "./profile-infer.ts";

/**
 * Runs of the comparison that calibrates: about 3.7 orders a run, so 40 runs
 * place about 150 orders, enough to see an outcome of 4 % (missed with
 * probability 0.96^150 ≈ 0.2 %) and to fit the timing's p95.
 */
const DEFAULT_RUNS = 40;

export const LEARN_USAGE = `usage: airtime-harness learn --target URL --token TOKEN --out DIR [--other-token TOKEN]
                             [--from-openapi FILE] [--listen HOST:PORT --webhook-secret SECRET]
                             [--budget KES] [--runs N] [--seed N] [--settle DUR] [--timeout DUR]

Probes the target for its provider profile (with --from-openapi, the document's guesses are
confirmed or corrected by the probe), compares it with a simulator speaking that profile
(${DEFAULT_RUNS} runs by default: about 150 orders, enough to see a 4 % outcome), and writes
DIR/provider.yaml and DIR/simulator.json, fitted to the target's timing and outcome mix.
\`airtime-harness serve --config DIR/simulator.json\` then runs the twin. --budget bounds what the
probe and the comparison may spend together. Exit 0 written, 1 the probe failed, 2 usage error.`;

const OPTIONS = {
  target: { type: "string" },
  token: { type: "string" },
  "other-token": { type: "string" },
  "from-openapi": { type: "string" },
  listen: { type: "string" },
  "webhook-secret": { type: "string" },
  budget: { type: "string" },
  runs: { type: "string" },
  seed: { type: "string" },
  settle: { type: "string" },
  timeout: { type: "string" },
  account: { type: "string" },
  out: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

interface LearnSettings {
  readonly target: string;
  readonly token: string;
  readonly otherToken: string | undefined;
  readonly document: string | undefined;
  readonly listen: { readonly host: string; readonly port: number } | undefined;
  readonly webhookSecret: string | undefined;
  readonly budget: number | undefined;
  readonly runs: number;
  readonly seed: number;
  readonly settleMs: number;
  readonly timeoutMs: number;
  readonly account: string;
  readonly out: string;
}

const whole = (text: string | undefined, fallback: number) =>
  text === undefined ? fallback : /^\d+$/.test(text) ? Number(text) : Number.NaN;

/** The settings, or what is wrong with the command line. */
function learnSettings(args: string[]): LearnSettings | string {
  let values;
  try {
    values = parseArgs({ args, options: OPTIONS }).values;
  } catch (error) {
    return (error as Error).message;
  }
  const { target, token, out } = values;
  if (target === undefined || token === undefined || out === undefined) return "needs --target, --token and --out";
  if (!URL.canParse(target)) return `--target '${target}' is not a URL`;
  if ((values.listen === undefined) !== (values["webhook-secret"] === undefined)) {
    return "--listen and --webhook-secret go together";
  }
  let listen;
  try {
    listen = values.listen === undefined ? undefined : parseListen(values.listen);
  } catch {
    return `--listen '${values.listen}' is not HOST:PORT`;
  }
  const budget = values.budget === undefined ? undefined : Number(values.budget);
  if (budget !== undefined && !(budget > 0)) return `--budget '${values.budget}' is not an amount of KES`;
  const runs = whole(values.runs, DEFAULT_RUNS);
  const seed = whole(values.seed, Math.floor(Math.random() * 2 ** 31));
  if (!(runs >= 1)) return `--runs '${values.runs}' is not a whole number above 0`;
  if (!Number.isSafeInteger(seed)) return `--seed '${values.seed}' is not a whole number`;
  const settle = parseDuration(values.settle ?? "60s");
  const timeout = parseDuration(values.timeout ?? "10s");
  if (!settle.ok) return `--settle: ${settle.error}`;
  if (!timeout.ok) return `--timeout: ${timeout.error}`;
  return {
    target,
    token,
    otherToken: values["other-token"],
    document: values["from-openapi"],
    listen,
    webhookSecret: values["webhook-secret"],
    budget,
    runs,
    seed,
    settleMs: settle.ms,
    timeoutMs: timeout.ms,
    account: values.account ?? (DEFAULT_ACCOUNTS[0] as string),
    out,
  };
}

export async function learn(args: string[]): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    console.log(LEARN_USAGE);
    return 0;
  }
  const settings = learnSettings(args);
  const fail = (message: string) => {
    console.error(`airtime-harness learn: ${message}\n\n${LEARN_USAGE}`);
    return 2;
  };
  if (typeof settings === "string") return fail(settings);
  const profileFile = join(settings.out, "provider.yaml");
  const configFile = join(settings.out, "simulator.json");
  for (const file of [profileFile, configFile]) if (await exists(file)) return fail(`${file} exists; not overwritten`);
  const fromDocument = settings.document === undefined ? undefined : await inferenceFromDocument(settings.document);
  if (typeof fromDocument === "string") return fail(fromDocument);

  console.log(`1/2 probing ${settings.target} for its provider profile`);
  const probed = await inferFromTarget(
    {
      target: settings.target,
      token: settings.token,
      ...(settings.otherToken === undefined ? {} : { otherToken: settings.otherToken }),
      account: settings.account,
      ...(settings.listen === undefined ? {} : { listen: settings.listen }),
      ...(settings.webhookSecret === undefined ? {} : { webhookSecret: settings.webhookSecret }),
      ...(settings.budget === undefined ? {} : { budget: settings.budget }),
      timeoutMs: settings.timeoutMs,
    },
    (line) => console.log(line),
  );
  if (!probed.ok) {
    console.error(`airtime-harness learn: ${probed.reason} (spent KES ${probed.spent})`);
    return 1;
  }
  const inferred = fromDocument === undefined ? probed.inferred : combineInferences(probed.inferred, fromDocument);
  await mkdir(settings.out, { recursive: true });
  const header = `Learnt from ${settings.target}${settings.document === undefined ? "" : ` and ${settings.document}`} by airtime-harness learn; review each comment.`;
  await writeFile(profileFile, profileYaml(inferred, header), "utf8");
  console.log(`probe spent KES ${probed.spent}`);
  for (const what of inferred.missing) console.log(`- not inferred: ${what}`);
  console.log(`wrote ${profileFile}`);
  return calibrate(settings, { profileFile, configFile, spent: probed.spent });
}

/** Step 2: the comparison inside what is left of the budget, and the config fitted to it. */
async function calibrate(
  settings: LearnSettings,
  files: { readonly profileFile: string; readonly configFile: string; readonly spent: number },
): Promise<number> {
  const loaded = await loadProviderProfile(files.profileFile);
  if (!loaded.ok) {
    console.error(formatProfileIssues(files.profileFile, loaded.issues));
    return 1;
  }
  const left = settings.budget === undefined ? undefined : settings.budget - files.spent;
  console.log(
    `\n2/2 comparing ${settings.target} with a simulator speaking that profile: ${settings.runs} runs, seed ${settings.seed}` +
      (left === undefined ? "" : `, within the KES ${left} left of the budget`),
  );
  const progress = createCompareProgress(process.stderr);
  const report = await runCompare({
    target: settings.target,
    token: settings.token,
    provider: loaded.profile,
    seed: settings.seed,
    runs: settings.runs,
    settleMs: settings.settleMs,
    safety: {
      ...(left === undefined ? {} : { budget: left }),
      ...(settings.otherToken === undefined ? {} : { otherToken: settings.otherToken }),
      requestTimeoutMs: settings.timeoutMs,
    },
    onProgress: (event) => progress.update(event),
  }).catch((error: unknown) => (error as Error).message);
  progress.done();
  if (typeof report === "string") {
    console.error(`airtime-harness learn: the comparison stopped: ${report}`);
    return 1;
  }
  const finals = Object.entries(report.targetSide.finals).map(([name, count]) => `${name} ×${count}`);
  console.log(`target finals: ${finals.join(", ") || "none"}`);
  const { config, leftOut } = await writeCalibration(files.configFile, {
    target: report.targetSide,
    providerFile: files.profileFile,
    provider: loaded.profile,
  });
  for (const name of leftOut) console.log(`not calibrated: the final status ${name} has no simulator status`);
  console.log(`wrote ${files.configFile}: ${JSON.stringify(config)}`);
  console.log(`run the twin: airtime-harness serve --config ${files.configFile}`);
  return 0;
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}
