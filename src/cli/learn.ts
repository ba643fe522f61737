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
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { formatProfileIssues, loadProviderProfile } from "../contract/provider-profile/load.ts";
import { writeCalibration } from "../compare/calibrate.ts";
import { runCompare } from "../compare/run-compare.ts";
import { combineInferences } from "../learn/infer-from-openapi.ts";
import { inferFromTarget } from "../learn/infer-from-target.ts";
import { profileYaml } from "../learn/profile-yaml.ts";
import { createCompareProgress } from "../compare/progress.ts";
import { fileExists, inferenceFromDocument } from "./profile.ts";
import { LEARN_USAGE, learnSettings, type LearnSettings } from "./learn-settings.ts";

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
  for (const file of [profileFile, configFile])
    if (await fileExists(file)) return fail(`${file} exists; not overwritten`);
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
