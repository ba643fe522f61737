/**
 * Which config file `serve` reads: the one named (`--config`, or
 * `AIRTIME_SIM_CONFIG`), else `airtime-harness.config.yaml` or `.json` in
 * the working directory, as eslint and vitest find theirs. Two candidates
 * at once is an error rather than a silent pick.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";

export const CONFIG_FILE_NAMES = ["airtime-harness.config.yaml", "airtime-harness.config.json"] as const;

/** The config file to read and whether it was found rather than named; an error text for two candidates. */
export type ConfigChoice =
  | { readonly kind: "none" }
  | { readonly kind: "file"; readonly file: string; readonly discovered: boolean }
  | { readonly kind: "error"; readonly message: string };

export function chooseConfigFile(named: string | undefined, cwd: string): ConfigChoice {
  if (named !== undefined && named !== "") return { kind: "file", file: named, discovered: false };
  const found = CONFIG_FILE_NAMES.filter((name) => existsSync(join(cwd, name)));
  if (found.length > 1) {
    return {
      kind: "error",
      message: `both ${found.join(" and ")} are in ${cwd}: keep one, or name the one to read with --config FILE`,
    };
  }
  const [name] = found;
  return name === undefined ? { kind: "none" } : { kind: "file", file: join(cwd, name), discovered: true };
}
