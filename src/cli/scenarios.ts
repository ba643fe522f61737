/**
 * `airtime-harness scenarios …`: check scenario files before using them, and
 * list what ships with the package.
 *
 *   scenarios validate FILE...   exit 0 when all are valid, 1 with `file: path: message` per problem
 *   scenarios list               the shipped scenario library
 *   scenarios accounts           the magic test accounts
 */
import { listLibraryFiles } from "../scenarios/library.ts";
import { formatScenarioIssue, readScenarioFiles } from "../scenarios/load.ts";
import { MAGIC_ACCOUNTS, nationalForm } from "../scenarios/magic-accounts.ts";

const USAGE = `usage: airtime-harness scenarios <command>

commands:
  validate FILE...   check scenario files (YAML or JSON); exit 1 and print
                     "file: path: message" for every problem
  list               the scenarios shipped with the package (usable by name:
                     serve --scenario NAME, X-Sim-Scenario: NAME)
  accounts           the magic test accounts (always on unless disabled)`;

async function validateFiles(files: readonly string[]): Promise<number> {
  if (files.length === 0) {
    console.error(`scenarios validate: give at least one file\n\n${USAGE}`);
    return 2;
  }
  // Each file is checked on its own, then together (two files with one name).
  const result = await readScenarioFiles(files);
  if (!result.ok) {
    for (const issue of result.issues) console.error(formatScenarioIssue(issue));
    console.error(`\n${result.issues.length} problem(s) in ${new Set(result.issues.map((i) => i.file)).size} file(s)`);
    return 1;
  }
  for (const scenario of result.scenarios) {
    const rules = scenario.definition.rules.length;
    console.log(`ok ${scenario.source}: ${scenario.definition.name} (${rules} rule${rules === 1 ? "" : "s"})`);
  }
  return 0;
}

async function listLibrary(): Promise<number> {
  const result = await readScenarioFiles(await listLibraryFiles());
  if (!result.ok) {
    for (const issue of result.issues) console.error(formatScenarioIssue(issue));
    return 1;
  }
  const width = Math.max(...result.scenarios.map((scenario) => scenario.definition.name.length));
  for (const { definition } of result.scenarios) {
    console.log(`${definition.name.padEnd(width)}  ${definition.description}`);
  }
  return 0;
}

function listAccounts(): number {
  for (const entry of MAGIC_ACCOUNTS) {
    console.log(`${entry.account}  ${nationalForm(entry.account)}  ${entry.service.padEnd(9)}  ${entry.behaviour}`);
  }
  return 0;
}

export async function scenarios(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  // `scenarios validate --help` asks for help, not for a file named --help.
  if (rest.includes("--help") || rest.includes("-h")) {
    console.log(USAGE);
    return 0;
  }
  switch (command) {
    case "validate":
      return validateFiles(rest);
    case "list":
      return listLibrary();
    case "accounts":
      return listAccounts();
    case undefined:
      console.error(USAGE);
      return 2;
    case "--help":
    case "-h":
    case "help":
      console.log(USAGE);
      return 0;
    default:
      console.error(`scenarios: unknown command '${command}'\n\n${USAGE}`);
      return 2;
  }
}
