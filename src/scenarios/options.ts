/**
 * How scenarios are chosen at start: the options of the scenarios plugin
 * (from `createSimulator({ scenarios })`, the config file's `scenarios:` key
 * and `serve --scenario`), resolved to validated scenarios and activations —
 * all or nothing, so a bad file stops the start instead of half-applying.
 */
import { isAbsolute, resolve } from "node:path";
import { z } from "zod";
import { didYouMean } from "../contract/did-you-mean.ts";
import { DEFAULT_STATUS_TABLE, type StatusTable } from "../contract/status-codes.ts";
import { listLibraryFiles, looksLikeFile, resolveScenarioArgument } from "./library.ts";
import {
  combineScenarioResults,
  formatScenarioIssue,
  type LoadedScenario,
  readScenarioFile,
  readScenarioFiles,
  type ScenarioIssue,
  validateScenario,
} from "./load.ts";
import { MAGIC_ACCOUNTS_SCENARIO_NAME } from "./magic-accounts.ts";
import { scenarioChoiceSettings, type ScenarioOptions } from "./scenario-settings.ts";

export type { ScenarioOptions } from "./scenario-settings.ts";

const ScenarioRefSchema = z
  .string()
  .min(1)
  .meta({ description: "A scenario file (path relative to this config file) or a shipped scenario's name." });

/** The `scenarios:` key of the simulator config (file, environment and flags alike). */
export const ScenariosConfigSchema = z
  .strictObject({
    active: z.array(ScenarioRefSchema).optional().meta({ description: "Active for every customer." }),
    customers: z
      .record(z.string().min(1), z.array(ScenarioRefSchema))
      .optional()
      .meta({ description: "Customer id → scenarios active for that customer only." }),
    load: z
      .array(ScenarioRefSchema)
      .optional()
      .meta({ description: "Loaded, not active (X-Sim-Scenario, admin API)." }),
    library: z.boolean().optional().meta({ description: "Load the shipped scenario library (default true)." }),
    magicAccounts: z
      .preprocess(
        (value) => (value === "on" ? true : value === "off" ? false : value),
        z.boolean({ error: "must be on or off" }),
      )
      .optional()
      .meta({ description: "The magic test accounts: true/on (default) or false/off." }),
    seed: z
      .int()
      .min(0)
      .max(2 ** 32 - 1)
      .optional(),
  })
  .meta({ description: "Failure scenarios: which are loaded and which are active, globally or per customer." });

export interface Activation {
  readonly name: string;
  readonly customer?: string;
}

export type PreparedScenarios =
  | { readonly ok: true; readonly scenarios: readonly LoadedScenario[]; readonly activations: readonly Activation[] }
  | { readonly ok: false; readonly issues: readonly ScenarioIssue[] };

/** A start-up failure carrying every issue (`file: path: message`). */
export class ScenarioLoadError extends Error {
  constructor(readonly issues: readonly ScenarioIssue[]) {
    // With each issue's line, as `scenarios validate` prints it, so an editor can jump there.
    super(`invalid scenarios:\n${issues.map((issue) => `  ${formatScenarioIssue(issue)}`).join("\n")}`);
    this.name = "ScenarioLoadError";
  }
}

/**
 * Reads the library, the files named in `options` and the inline
 * definitions; checks every activation names a scenario. A user file may
 * replace a shipped scenario of the same name.
 */
export async function prepareScenarios(
  options: ScenarioOptions,
  statusTable: StatusTable = DEFAULT_STATUS_TABLE,
): Promise<PreparedScenarios> {
  const { refs, definitions, library: withLibrary, baseDir } = scenarioChoiceSettings(options);
  const toFile = (ref: string) => {
    const file = resolveScenarioArgument(ref);
    return looksLikeFile(ref) && !isAbsolute(file) ? resolve(baseDir, file) : file;
  };

  const libraryFiles = withLibrary ? await listLibraryFiles() : [];
  const library = await readScenarioFiles(libraryFiles, { statusTable });
  const userFiles = [...new Set(refs.filter(({ ref }) => looksLikeFile(ref)).map(({ ref }) => toFile(ref)))];
  // A shipped name asked for with library: false is read from the library folder on its own.
  const namedFiles = withLibrary
    ? []
    : [...new Set(refs.filter(({ ref }) => !looksLikeFile(ref)).map(({ ref }) => toFile(ref)))];
  const user = combineScenarioResults([
    ...(await Promise.all([...userFiles, ...namedFiles].map((file) => readScenarioFile(file, { statusTable })))),
    ...definitions.map((definition, index) => validateScenario(definition, `definitions[${index}]`, { statusTable })),
  ]);

  const issues: ScenarioIssue[] = [...(library.ok ? [] : library.issues), ...(user.ok ? [] : user.issues)];
  const byName = new Map<string, LoadedScenario>();
  for (const scenario of [...(library.ok ? library.scenarios : []), ...(user.ok ? user.scenarios : [])]) {
    if (scenario.definition.name === MAGIC_ACCOUNTS_SCENARIO_NAME) {
      issues.push({ file: scenario.source, path: "name", message: `'${MAGIC_ACCOUNTS_SCENARIO_NAME}' is reserved` });
    }
    byName.set(scenario.definition.name, scenario);
  }
  const nameOfFile = new Map(
    [...byName.values()].map((scenario) => [scenario.source, scenario.definition.name] as const),
  );

  const activations: Activation[] = [];
  for (const { ref, customer, loadOnly } of refs) {
    const name = looksLikeFile(ref) ? nameOfFile.get(toFile(ref)) : ref;
    if (name === undefined) continue; // the file's own issues are already listed
    if (!byName.has(name)) {
      const where = customer === undefined ? "--scenario" : `--scenario-for ${customer}`;
      issues.push({
        file: where,
        path: ref,
        message: `no scenario named '${ref}'${didYouMean(ref, byName.keys())} (shipped: ${libraryNames(library)}; or give a file path)`,
      });
      continue;
    }
    if (loadOnly !== true) activations.push(customer === undefined ? { name } : { name, customer });
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, scenarios: [...byName.values()], activations };
}

function libraryNames(library: Awaited<ReturnType<typeof readScenarioFiles>>): string {
  if (!library.ok || library.scenarios.length === 0) return "none";
  return library.scenarios.map((scenario) => scenario.definition.name).join(", ");
}
