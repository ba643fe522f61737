/**
 * The scenario library shipped in the package's `scenarios/` folder, and how
 * a `--scenario` argument is resolved: a path to a file, or the name of a
 * shipped scenario.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../package-root.ts";

/** Absolute path of the shipped `scenarios/` folder. */
const SCENARIO_LIBRARY_DIR = join(PACKAGE_ROOT, "scenarios");

const SCENARIO_FILE = /\.(?:ya?ml|json)$/i;

/** The shipped scenario files, sorted by name. */
export async function listLibraryFiles(directory = SCENARIO_LIBRARY_DIR): Promise<string[]> {
  const entries = await readdir(directory);
  return entries
    .filter((entry) => SCENARIO_FILE.test(entry))
    .sort()
    .map((entry) => join(directory, entry));
}

/** True when a `--scenario` argument names a file rather than a scenario. */
export function looksLikeFile(argument: string): boolean {
  return SCENARIO_FILE.test(argument) || argument.includes("/") || argument.includes("\\");
}

/**
 * The file a `--scenario` argument points to: the argument itself when it
 * looks like a path, else `scenarios/<name>.yaml` of the shipped library.
 *
 * @example
 * resolveScenarioArgument("flaky-gateway"); // …/scenarios/flaky-gateway.yaml
 * resolveScenarioArgument("./qa/my-outage.yaml"); // ./qa/my-outage.yaml
 */
export function resolveScenarioArgument(argument: string, directory = SCENARIO_LIBRARY_DIR): string {
  return looksLikeFile(argument) ? argument : join(directory, `${argument}.yaml`);
}
