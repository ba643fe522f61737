/**
 * The config file of `airtime-harness serve --config FILE` (YAML or JSON),
 * and the step from a parsed config to `createSimulator` options: the status
 * profile file is read, scenario files resolve from the config's folder.
 * Errors name the file, the path inside it and what is wrong.
 */
import { readFile } from "node:fs/promises";
import { dirname, extname, resolve } from "node:path";
import { parse as parseYaml, type YAMLParseError } from "yaml";
import { z } from "zod";
import { formatProfileIssues, loadProviderProfile } from "../contract/provider-profile/load.ts";
import type { ProviderProfile } from "../contract/provider-profile/schema.ts";
import { type ReadableIssue, issuePath, readableIssue } from "../contract/readable-issues.ts";
import { keysOf, unknownKeyIssues } from "../contract/schema-keys.ts";
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

/**
 * A `.json` file read as JSON, anything else as YAML: JSON is a subset of
 * YAML, but YAML forgives what JSON does not (a trailing comma) and would
 * report a JSON mistake in YAML's terms. Errors give line and column.
 */
async function readDataFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new ConfigError(file, [`cannot read the file: ${(error as Error).message}`]);
  }
  if (extname(file).toLowerCase() === ".json") {
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new ConfigError(file, [jsonError(text, error as Error)]);
    }
  }
  try {
    return parseYaml(text);
  } catch (error) {
    throw new ConfigError(file, [yamlError(error as YAMLParseError)]);
  }
}

/** "not valid JSON at line 4, column 1: Expected double-quoted property name", from where JSON.parse stopped. */
function jsonError(text: string, error: Error): string {
  const [head = "", position] = error.message.split(/ in JSON at position (?=\d)/);
  const offset = position === undefined ? undefined : Number.parseInt(position, 10);
  if (offset === undefined) return `not valid JSON: ${head}`;
  const before = text.slice(0, offset).split("\n");
  return `not valid JSON at line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}: ${head}`;
}

function yamlError(error: YAMLParseError): string {
  const message = error.message.split("\n")[0]?.replace(/ at line \d+, column \d+:?$/, "") ?? "";
  const at = error.linePos?.[0];
  return at === undefined
    ? `not valid YAML: ${message}`
    : `not valid YAML at line ${at.line}, column ${at.col}: ${message}`;
}

/** The file's content, not yet validated (an empty file is an empty config). */
export async function readConfigFile(file: string): Promise<unknown> {
  return (await readDataFile(file)) ?? {};
}

export type ParsedConfig =
  | { readonly ok: true; readonly config: SimulatorConfig }
  | { readonly ok: false; readonly issues: readonly ReadableIssue[] };

const configKeys = keysOf(SimulatorConfigSchema);

/** The one parse of a whole config, whatever its parts came from. */
export function parseSimulatorConfig(input: unknown): ParsedConfig {
  const parsed = SimulatorConfigSchema.safeParse(input);
  if (parsed.success) return { ok: true, config: parsed.data };
  const issues = parsed.error.issues.flatMap((issue) =>
    issue.code === "unrecognized_keys"
      ? unknownKeyIssues(issue, configKeys, "not a config key")
      : [readableIssue(issue)],
  );
  return { ok: false, issues };
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
    .safeParse(await readDataFile(profileFile));
  if (!parsed.success) {
    throw new ConfigError(profileFile, describeConfigIssues(parsed.error.issues.map((issue) => readableIssue(issue))));
  }
  return parsed.data;
}

/** The provider profile a config names, from the config's folder; a bad profile names its field. */
async function loadProvider(file: string | undefined, provider: string): Promise<ProviderProfile> {
  const profileFile = resolve(file === undefined ? "." : dirname(file), provider);
  const loaded = await loadProviderProfile(profileFile);
  if (!loaded.ok) throw new ConfigError(profileFile, formatProfileIssues(profileFile, loaded.issues).split("\n"));
  return loaded.profile;
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
    provider,
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
    ...(provider === undefined ? {} : { provider: await loadProvider(file, provider) }),
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
