/**
 * A command's flags as one table. Each flag, and its environment twin, sets
 * one path of the command's config; the command's schema then parses the
 * whole config once, and a problem it finds is reported against the flag or
 * variable that gave the value. Adding a flag is adding an entry; a
 * command with none (`init`, `secret`) checks only that it got no argument.
 */
import { type ParseArgsConfig, parseArgs } from "node:util";
import { closestName } from "../contract/did-you-mean.ts";

type ParseArgsOptionsConfig = NonNullable<ParseArgsConfig["options"]>;

export interface Flag {
  readonly name: string;
  /** The environment twin; the flag wins over it. */
  readonly env?: string;
  /** Read the environment twin only when this other flag is given (a token only with its target). */
  readonly envWith?: string;
  /** Placeholder of the value in `--help`; absent for a switch. */
  readonly value?: string;
  readonly help: string;
  /** Where the value goes in the config. */
  readonly path: readonly string[];
  /** May be given several times; the values add to the list (or map) at `path`. */
  readonly multiple?: boolean;
  /** Another flag that must be set too (by its flag, its environment twin or a config file). */
  readonly requires?: string;
  /** What a switch (no `value`) sets at `path`; default true (`--no-admin` sets `admin: false`). */
  readonly sets?: unknown;
  /** Text → config value, only where the command line's form is not the config's. Throws the problem. */
  readonly parse?: (text: string) => unknown;
}

/** Which flag (or its environment twin) set a part of the config. */
export interface FlagSource {
  readonly flag: Flag;
  readonly from: "flag" | "env";
}

export type ReadFlags =
  | {
      readonly ok: true;
      /** The part of the config the flags and environment give. */
      readonly config: Record<string, unknown>;
      readonly sources: readonly FlagSource[];
      /** Values of the options outside the table (`--help`, `--config`, report files). */
      readonly other: Readonly<Record<string, string | boolean | undefined>>;
    }
  | { readonly ok: false; readonly error: string };

type Plain = Record<string, unknown>;

function isPlain(value: unknown): value is Plain {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `overlay` over `base`: objects merge key by key, lists add up, anything else is replaced. */
export function mergeConfig(base: unknown, overlay: unknown): unknown {
  if (Array.isArray(base) && Array.isArray(overlay)) return [...base, ...overlay];
  if (!isPlain(base) || !isPlain(overlay)) return overlay;
  const merged: Plain = { ...base };
  for (const [key, value] of Object.entries(overlay)) merged[key] = mergeConfig(base[key], value);
  return merged;
}

function nest(path: readonly string[], value: unknown): unknown {
  return path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);
}

function valueAt(config: unknown, path: readonly string[]): unknown {
  let value = config;
  for (const key of path) value = isPlain(value) ? value[key] : undefined;
  return value;
}

function where(source: FlagSource): string {
  return source.from === "flag" ? `--${source.flag.name}` : `${source.flag.env}: --${source.flag.name}`;
}

/** "--port must be …", "--timing: "soon" is not a duration": a rule reads on, a parser's message follows a colon. */
function blame(source: FlagSource, message: string): string {
  return `${where(source)}${/^(must|needs) /.test(message) ? " " : ": "}${message}`;
}

/**
 * node:util's "Unknown option '--prot'. To specify a positional argument …"
 * as a short line with the flag it most likely meant; undefined for any
 * other parse error.
 */
export function unknownOptionMessage(error: unknown, known: readonly string[]): string | undefined {
  if ((error as { code?: unknown }).code !== "ERR_PARSE_ARGS_UNKNOWN_OPTION") return undefined;
  const option = /Unknown option '([^']+)'/.exec((error as Error).message)?.[1];
  if (option === undefined) return undefined;
  const meant = option.startsWith("--") ? closestName(option.slice(2), known) : undefined;
  return `unknown option ${option}${meant === undefined ? "" : `; did you mean --${meant}?`}`;
}

/** Flags, then environment twins → the part of the config they set. */
export function readFlags(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  flags: readonly Flag[],
  other: ParseArgsOptionsConfig = {},
): ReadFlags {
  let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  const options: ParseArgsOptionsConfig = { ...other };
  try {
    for (const flag of flags) {
      options[flag.name] =
        flag.value === undefined
          ? { type: "boolean" }
          : { type: "string", ...(flag.multiple ? { multiple: true } : {}) };
    }
    values = parseArgs({ args: [...args], options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    return { ok: false, error: unknownOptionMessage(error, Object.keys(options)) ?? (error as Error).message };
  }
  let config: unknown = {};
  const sources: FlagSource[] = [];
  for (const flag of flags) {
    const given = values[flag.name];
    const envValue =
      flag.env === undefined || (flag.envWith !== undefined && values[flag.envWith] === undefined)
        ? undefined
        : env[flag.env];
    const source: FlagSource = { flag, from: given === undefined ? "env" : "flag" };
    const list = given === undefined ? (envValue === undefined || envValue === "" ? [] : [envValue]) : [given].flat();
    for (const text of list) {
      let value: unknown = typeof text === "boolean" && flag.sets !== undefined ? flag.sets : text;
      if (flag.parse !== undefined && typeof text === "string") {
        try {
          value = flag.parse(text);
        } catch (error) {
          return { ok: false, error: blame(source, (error as Error).message) };
        }
      }
      config = mergeConfig(config, nest(flag.path, value));
    }
    if (list.length > 0) sources.push(source);
  }
  const otherValues: Record<string, string | boolean | undefined> = {};
  for (const name of Object.keys(other)) otherValues[name] = values[name] as string | boolean | undefined;
  return { ok: true, config: config as Record<string, unknown>, sources, other: otherValues };
}

/** The first flag whose required companion is missing from the merged config, as a message. */
export function missingCompanion(
  config: unknown,
  sources: readonly FlagSource[],
  flags: readonly Flag[],
): string | undefined {
  for (const source of sources) {
    const companion = flags.find((flag) => flag.name === source.flag.requires);
    if (companion === undefined || valueAt(config, companion.path) !== undefined) continue;
    const twin = companion.env === undefined ? "" : ` (or ${companion.env})`;
    return blame(source, `needs --${companion.name}${twin}`);
  }
  return undefined;
}

/**
 * A problem the schema found, told against the flag or variable that set its
 * path; undefined when the value came from elsewhere (a config file).
 */
export function blameFlag(
  issue: { readonly path: readonly PropertyKey[]; readonly message: string },
  sources: readonly FlagSource[],
): string | undefined {
  const owners = sources.filter(({ flag }) => flag.path.every((key, index) => issue.path[index] === key));
  const owner = owners.sort((a, b) => b.flag.path.length - a.flag.path.length)[0];
  return owner === undefined ? undefined : blame(owner, issue.message);
}

/** `--help` lines: flag and placeholder, environment twin, help. */
export function flagRows(flags: readonly Flag[]): string[][] {
  return flags.map((flag) => [
    `--${flag.name}${flag.value === undefined ? "" : ` ${flag.value}`}`,
    flag.env ?? "",
    flag.help,
  ]);
}

/**
 * The table of a command that has no flags: the argument check of a command
 * that takes none but `--help`: its exit
 * code when the arguments end the command (help, or a usage error), else
 * undefined and the command goes on.
 */
export function helpOrNoArguments(command: string, usage: string, args: readonly string[]): number | undefined {
  if (args.length === 1 && (args[0] === "-h" || args[0] === "--help")) {
    console.log(usage);
    return 0;
  }
  if (args.length === 0) return undefined;
  console.error(`airtime-harness ${command}: takes no arguments, not ${args.join(" ")}\n\n${usage}`);
  return 2;
}
