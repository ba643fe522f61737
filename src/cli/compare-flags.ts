/**
 * The flags `compare` shares with `contract` for a real deployment —
 * `--budget`, `--accounts`, `--other-token`, `--request-timeout` — taken
 * from contract's flag table and parsed by contract's option schema, so the
 * two commands read them (and their environment twins, and their mistakes)
 * the same way.
 */
import type { ParseArgsConfig } from "node:util";
import type { z } from "zod";
import type { CompareSafety } from "../compare/safety.ts";
import { readableIssue } from "../contract/readable-issues.ts";
import { loadAccounts } from "../harness/accounts.ts";
import { ContractOptionsSchema } from "../harness/contract-options.ts";
import { CONTRACT_FLAGS } from "./contract.ts";
import { blameFlag, type Flag, readFlags } from "./flag-table.ts";

const SHARED_FLAG_NAMES: readonly string[] = ["budget", "accounts", "other-token", "request-timeout"];

export const COMPARE_SAFETY_FLAGS: readonly Flag[] = CONTRACT_FLAGS.flatMap((section) => section.flags).filter((flag) =>
  SHARED_FLAG_NAMES.includes(flag.name),
);

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
