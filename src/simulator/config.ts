/**
 * The config file of `airtime-harness serve --config FILE` (YAML or JSON),
 * and the step from a parsed config to `createSimulator` options: the status
 * profile file is read, scenario files resolve from the config's folder.
 * Errors name the file, the path inside it and what is wrong.
 */
import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { type ReadableIssue, issuePath, readableIssue } from "../contract/readable-issues.ts";
import type { OrderLimits } from "../contract/public-schemas.ts";
import { createStatusTable, type StatusDefinition } from "../contract/status-codes.ts";
import { type SimulatorConfig, SimulatorConfigSchema, StatusDefinitionSchema } from "./config-schema.ts";
import type { SimulatorOptions } from "./simulator-options.ts";

export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly issues: readonly string[],
  ) {
    super(`${file}: invalid config\n${issues.map((issue) => `  ${issue}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

export function describeConfigIssues(issues: readonly ReadableIssue[]): string[] {
  return issues.map((issue) => `${issuePath(issue.path)}: ${issue.message}`);
}

async function readYaml(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new ConfigError(file, [`cannot read the file: ${(error as Error).message}`]);
  }
  try {
    return parseYaml(text);
  } catch (error) {
    throw new ConfigError(file, [`not valid YAML: ${(error as Error).message.split("\n")[0]}`]);
  }
}

/** The file's content, not yet validated (an empty file is an empty config). */
export async function readConfigFile(file: string): Promise<unknown> {
  return (await readYaml(file)) ?? {};
}

export type ParsedConfig =
  | { readonly ok: true; readonly config: SimulatorConfig }
  | { readonly ok: false; readonly issues: readonly ReadableIssue[] };

/** The one parse of a whole config, whatever its parts came from. */
export function parseSimulatorConfig(input: unknown): ParsedConfig {
  const parsed = SimulatorConfigSchema.safeParse(input);
  return parsed.success
    ? { ok: true, config: parsed.data }
    : { ok: false, issues: parsed.error.issues.map((issue) => readableIssue(issue)) };
}

async function loadStatusProfile(
  file: string | undefined,
  profile: SimulatorConfig["statusProfile"],
): Promise<StatusDefinition[] | undefined> {
  if (profile === undefined || Array.isArray(profile)) return profile;
  const profileFile = resolve(file === undefined ? "." : dirname(file), profile);
  const parsed = z
    .array(StatusDefinitionSchema)
    .min(1)
    .safeParse(await readYaml(profileFile));
  if (!parsed.success) {
    throw new ConfigError(profileFile, describeConfigIssues(parsed.error.issues.map((issue) => readableIssue(issue))));
  }
  return parsed.data;
}

/**
 * A parsed config → `createSimulator` options. `file` is where the config
 * came from: a status profile and scenario files named in it resolve from
 * its folder. Throws ConfigError for a status profile that is not usable.
 */
export async function configToOptions(config: SimulatorConfig, file?: string): Promise<SimulatorOptions> {
  const where = file ?? "config";
  const statusTable = await loadStatusProfile(file, config.statusProfile);
  if (statusTable !== undefined) {
    try {
      createStatusTable(statusTable);
    } catch (error) {
      throw new ConfigError(where, [`statusProfile: ${(error as Error).message}`]);
    }
  }
  const {
    $schema: _schema,
    port: _port,
    host: _host,
    log: _log,
    shutdownTimeout: _shutdownTimeout,
    workers: _workers,
    idempotencyRetention,
    statusProfile: _profile,
    limits,
    scenarios,
    ...rest
  } = config;
  return {
    ...rest,
    idempotencyRetentionMs: idempotencyRetention,
    // Parsing leaves out the limits not given (none is set to undefined) and holds currencies to at least one.
    limits: limits as Partial<OrderLimits> | undefined,
    statusTable,
    ...(scenarios === undefined
      ? {}
      : { scenarios: file === undefined ? scenarios : { ...scenarios, baseDir: dirname(resolve(file)) } }),
  };
}

/**
 * Reads and validates a config file.
 *
 * @example
 * const options = await loadSimulatorConfig("simulator.yaml");
 * const sim = await createSimulator(options);
 */
export async function loadSimulatorConfig(file: string): Promise<SimulatorOptions> {
  const parsed = parseSimulatorConfig(await readConfigFile(file));
  if (!parsed.ok) throw new ConfigError(file, describeConfigIssues(parsed.issues));
  return configToOptions(parsed.config, file);
}
