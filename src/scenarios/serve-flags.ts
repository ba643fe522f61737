/**
 * The `serve` flags of the scenarios: `--scenario FILE|NAME` (repeatable,
 * active for every customer), `--scenario-for CUSTOMER=FILE|NAME`
 * (repeatable, one customer only) and `--magic-accounts on|off`. They add to
 * what the config file activates. A value may also list several, separated
 * by commas (handy in the environment variables).
 */
import { resolve } from "node:path";
import type { ServeFlag, ServeSettings } from "../cli/serve.ts";
import { looksLikeFile } from "./library.ts";
import type { ScenarioOptions } from "./options.ts";

function scenarioOptions(settings: ServeSettings): ScenarioOptions {
  const current = settings.options.scenarios;
  return current === false || current === undefined ? {} : current;
}

/** Files named on the command line resolve from the working directory, not the config's folder. */
function refOf(value: string): string {
  return looksLikeFile(value) ? resolve(value) : value;
}

function list(value: string): string[] {
  return value
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
}

export const SCENARIO_SERVE_FLAGS: readonly ServeFlag[] = [
  {
    name: "scenario",
    env: "AIRTIME_SIM_SCENARIO",
    value: "FILE|NAME",
    multiple: true,
    help: "activate a scenario for every customer: a YAML file or a shipped name (repeatable)",
    apply(value, settings) {
      const refs = list(value);
      if (refs.length === 0) return "--scenario needs a file or a scenario name";
      const current = scenarioOptions(settings);
      settings.options.scenarios = { ...current, active: [...(current.active ?? []), ...refs.map(refOf)] };
      return undefined;
    },
  },
  {
    name: "scenario-for",
    env: "AIRTIME_SIM_SCENARIO_FOR",
    value: "CUSTOMER=FILE|NAME",
    multiple: true,
    help: "activate a scenario for one customer only (repeatable)",
    apply(value, settings) {
      const current = scenarioOptions(settings);
      const customers: Record<string, readonly string[]> = { ...current.customers };
      for (const entry of list(value)) {
        const [customer, ref] = [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)];
        if (!entry.includes("=") || customer === "" || ref === "") {
          return `--scenario-for needs CUSTOMER=FILE|NAME, got ${JSON.stringify(entry)}`;
        }
        customers[customer] = [...(customers[customer] ?? []), refOf(ref)];
      }
      settings.options.scenarios = { ...current, customers };
      return undefined;
    },
  },
  {
    name: "magic-accounts",
    env: "AIRTIME_SIM_MAGIC_ACCOUNTS",
    value: "on|off",
    help: "the magic test accounts (default on)",
    apply(value, settings) {
      if (value !== "on" && value !== "off") return "--magic-accounts must be on or off";
      settings.options.scenarios = { ...scenarioOptions(settings), magicAccounts: value === "on" };
      return undefined;
    },
  },
];
