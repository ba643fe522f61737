/**
 * `compare`'s command line, read once: its own flags normalised into one
 * frozen object, and the flags it shares with `contract`.
 */
import type { ParseArgsConfig } from "node:util";
import type { z } from "zod";
import type { CompareSafety } from "../compare/safety.ts";
import { parseDuration } from "../contract/duration.ts";
import { readableIssue } from "../contract/readable-issues.ts";
import { loadAccounts } from "../harness/accounts.ts";
import { ContractOptionsSchema } from "../harness/contract-options.ts";
import { CONTRACT_FLAGS } from "./contract.ts";
import { blameFlag, type Flag, readFlags } from "./flag-table.ts";
import { compileProfile } from "../contract/provider-profile/compile.ts";
import type { ProviderProfile } from "../contract/provider-profile/schema.ts";
import { startWebhookRecorder, type WebhookRecorder } from "../compare/observe-webhooks.ts";
import { assertListenAddressFree, parseListen } from "../harness/listen-address.ts";

/**
 * What `compare` is asked to run, normalised once from its flags: one table
 * of defaults, and the target, token, seed, runs, settle time and score
 * threshold read into one frozen object (or the reason they cannot be).
 * The comparison's own defaults are `COMPARE_DEFAULTS` in the comparison.
 */

/** Every default of `compare`'s flags. */
export const COMPARE_RUN_DEFAULTS = Object.freeze({
  /** Sequences sent to each side. */
  runs: 20,
  /** How long an order may stay pending. */
  settle: "60s",
});

/** The flags as `parseArgs` read them: text, or absent. */
type CompareRunFlags = Readonly<Partial<Record<string, string>>>;

export interface CompareRun {
  readonly target: string;
  readonly token: string;
  readonly seed: number;
  readonly runs: number;
  readonly settleMs: number;
  /** The overall score (0–1) below which the command exits 1. */
  readonly failUnder: number | undefined;
}

function parseCount(text: string | undefined, fallback: number): number | undefined {
  if (text === undefined) return fallback;
  return /^\d+$/.test(text) ? Number(text) : undefined;
}

function parseScore(text: string | undefined): number | undefined | "bad" {
  if (text === undefined) return undefined;
  const score = Number(text.replace(/%$/, ""));
  return text.trim() !== "" && Number.isFinite(score) && score >= 0 && score <= 100 ? score / 100 : "bad";
}

/**
 * @example
 * compareRunFlags({ target: "https://sandbox.example", token: "T", runs: "5" }, {});
 * // { target, token: "T", seed: <random>, runs: 5, settleMs: 60000, failUnder: undefined }
 */
export function compareRunFlags(values: CompareRunFlags, env: NodeJS.ProcessEnv): CompareRun | string {
  const token = values.token ?? env.AIRTIME_TOKEN;
  if (values.target === undefined || token === undefined) return "needs --target and --token";
  if (!URL.canParse(values.target)) return `--target '${values.target}' is not a URL`;
  const seed = parseCount(values.seed, Math.floor(Math.random() * 2 ** 31));
  const runs = parseCount(values.runs, COMPARE_RUN_DEFAULTS.runs);
  const settle = parseDuration(values.settle ?? COMPARE_RUN_DEFAULTS.settle);
  const failUnder = parseScore(values["fail-under"]);
  if (seed === undefined) return `--seed '${values.seed}' is not a whole number`;
  if (runs === undefined || runs < 1) return `--runs '${values.runs}' is not a whole number above 0`;
  if (!settle.ok) return `--settle: ${settle.error}`;
  if (failUnder === "bad") return `--fail-under '${values["fail-under"]}' is not a percentage 0–100`;
  return Object.freeze({ target: values.target, token, seed, runs, settleMs: settle.ms, failUnder });
}

/**
 * The flags `compare` shares with `contract`, taken from contract's flag
 * table, so the two commands name, explain and read them (and their
 * environment twins, and their mistakes) the same way: for a real
 * deployment `--budget`, `--accounts`, `--other-token`, `--request-timeout`,
 * parsed by contract's option schema; and the target's webhooks,
 * `--webhook-listen`, `--webhook-secret`, `--webhook-url`, received by the
 * command itself.
 */

/** `contract`'s own entries of its flag table, by name. */
function contractFlags(names: readonly string[]): readonly Flag[] {
  return CONTRACT_FLAGS.flatMap((section) => section.flags).filter((flag) => names.includes(flag.name));
}

export const COMPARE_SAFETY_FLAGS = contractFlags(["budget", "accounts", "other-token", "request-timeout"]);

const SafetySchema = ContractOptionsSchema.pick({
  budget: true,
  accountsFile: true,
  otherToken: true,
  requestTimeoutMs: true,
}).strict();

/** The shared flags' `--help` lines, in the layout of compare's own. */
export function safetyUsage(): string {
  return COMPARE_SAFETY_FLAGS.map((flag) => {
    const left = `--${flag.name}${flag.value === undefined ? "" : ` ${flag.value}`}`;
    const help = flag.help.replaceAll("\n", " ") + (flag.env === undefined ? "" : ` (or ${flag.env})`);
    return `  ${left.padEnd(20)}  ${help}`;
  }).join("\n");
}

type ReadCompareFlags<Values> =
  | { readonly ok: true; readonly values: Values; readonly safety: CompareSafety }
  | { readonly ok: false; readonly error: string };

/**
 * compare's own options (`options`) and the shared ones, from one command
 * line; the shared ones validated, `--accounts` read.
 *
 * @example
 * await readCompareFlags(["--target", url, "--budget", "500"], process.env, { target: { type: "string" } });
 */
export async function readCompareFlags<Values>(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  options: NonNullable<ParseArgsConfig["options"]>,
): Promise<ReadCompareFlags<Values>> {
  const flags = readFlags(args, env, COMPARE_SAFETY_FLAGS, options);
  if (!flags.ok) return flags;
  const parsed = SafetySchema.safeParse(flags.config);
  if (!parsed.success) {
    const issue = readableIssue(parsed.error.issues[0] as z.core.$ZodIssue);
    return { ok: false, error: blameFlag(issue, flags.sources) ?? issue.message };
  }
  const { budget, accountsFile, otherToken, requestTimeoutMs } = parsed.data;
  let accounts: readonly string[] | undefined;
  if (accountsFile !== undefined) {
    const loaded = await loadAccounts(accountsFile);
    if (!loaded.ok) return { ok: false, error: `--accounts: ${loaded.error}` };
    accounts = loaded.recipients.map((recipient) => recipient.account);
  }
  const safety: CompareSafety = { budget, accounts, otherToken, requestTimeoutMs };
  return { ok: true, values: flags.other as Values, safety };
}

/** `--webhook-listen H:P --webhook-secret S [--webhook-url URL]`: the target's webhooks, received by compare itself. */
const WEBHOOK_FLAGS = contractFlags(["webhook-listen", "webhook-secret", "webhook-url"]);

/** The flags as `parseArgs` options, to spread into the command's own. */
export const WEBHOOK_PARSE_OPTIONS = Object.fromEntries(
  WEBHOOK_FLAGS.map((flag) => [flag.name, { type: "string" as const }]),
);

/** The flags' `--help` lines, in the layout of the command's usage text. */
export const WEBHOOK_USAGE = WEBHOOK_FLAGS.map((flag) => {
  const name = `--${flag.name} ${flag.value ?? ""}`.padEnd(21);
  const twin = flag.env === undefined ? "" : ` (or ${flag.env})`;
  return `  ${name} ${flag.help.replaceAll("\n", " ")}${twin}`;
}).join("\n");

/** The flag's value, or its environment twin when the flag it goes with was given. */
function valueOf(name: string, values: Readonly<Record<string, unknown>>, env: NodeJS.ProcessEnv): string | undefined {
  const flag = WEBHOOK_FLAGS.find((candidate) => candidate.name === name);
  const given = values[name];
  if (typeof given === "string") return given;
  if (flag?.env === undefined || (flag.envWith !== undefined && values[flag.envWith] === undefined)) return undefined;
  const twin = env[flag.env];
  return twin === "" ? undefined : twin;
}

export type TargetWebhooks =
  | { readonly ok: true; readonly recorder?: WebhookRecorder; readonly postTo?: string }
  | { readonly ok: false; readonly error: string };

/**
 * Starts the receiver the flags ask for (none without --webhook-listen), or
 * says which flag is wrong.
 *
 * @example
 * const webhooks = await openTargetWebhooks(values, process.env, provider);
 */
export async function openTargetWebhooks(
  values: Readonly<Record<string, unknown>>,
  env: NodeJS.ProcessEnv,
  provider: ProviderProfile | undefined,
): Promise<TargetWebhooks> {
  const listen = valueOf("webhook-listen", values, env);
  const secret = valueOf("webhook-secret", values, env);
  const postTo = valueOf("webhook-url", values, env);
  if (listen === undefined) {
    return secret === undefined && postTo === undefined
      ? { ok: true }
      : { ok: false, error: "--webhook-secret and --webhook-url need --webhook-listen" };
  }
  if (secret === undefined)
    return { ok: false, error: "--webhook-listen needs --webhook-secret (or AIRTIME_WEBHOOK_SECRET)" };
  if (postTo !== undefined && !URL.canParse(postTo))
    return { ok: false, error: `--webhook-url '${postTo}' is not a URL` };
  try {
    // Names the address and why it cannot be listened on (in use, not this machine's) before anything is sent.
    await assertListenAddressFree(listen);
    const recorder = await startWebhookRecorder({ profile: compileProfile(provider), secret, ...parseListen(listen) });
    return { ok: true, recorder, ...(postTo === undefined ? {} : { postTo }) };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}
