/**
 * The first step of a contract run: the options checked and resolved into a
 * plan (profile, selection, replay path, recipients, seed, runs, target spec)
 * before anything is started, so unusable options fail before a port opens.
 */
import { randomInt } from "node:crypto";
import { MAGIC_ACCOUNTS } from "../scenarios/magic-accounts.ts";
import { type CompiledProfile, compileProfile } from "../contract/provider-profile/compile.ts";
import { createPacer, type Pacer } from "./paced-client.ts";
import { domainFromSpecFile } from "./spec-domain.ts";
import type { ProviderProfile } from "../contract/provider-profile/schema.ts";
import { defaultRecipients, inDomain, type Recipient, toRecipient } from "./accounts.ts";
import { HarnessError } from "./checker.ts";
import { type CheckName, selectChecks } from "./checks.ts";
import { type ContractOptions, DEFAULT_RUNS, DEFAULT_TIMING_MS } from "./contract-options.ts";
import { checksOf, type Strictness } from "./strictness.ts";
import { parseReplayPath } from "./replay.ts";
import type { TargetSpec } from "./target.ts";
import { createTokenSource, runTokenCommand, type TokenSource } from "./token-source.ts";

export interface ContractPlan {
  /** The options, with the first token of `--token-command` filled in. */
  readonly options: ContractOptions;
  readonly tokens: TokenSource | undefined;
  readonly profile: Strictness;
  readonly provider: CompiledProfile;
  /** Paces every request of the run to the profile's stated rate limit; absent when it states none. */
  readonly pacer: Pacer | undefined;
  readonly inProfile: ReadonlySet<CheckName>;
  readonly selected: ReadonlySet<CheckName>;
  readonly replay: ReturnType<typeof parseReplayPath>;
  readonly recipients: readonly Recipient[];
  readonly seed: number;
  readonly runs: number;
  readonly spec: TargetSpec;
}

/** Checks the options and resolves them into a plan; throws a HarnessError for unusable ones. */
export async function planContractRun(given: ContractOptions): Promise<ContractPlan> {
  // An expiring token: the command gives the first one, and a fresh one whenever a working token gets 401.
  const firstToken =
    given.tokenCommand === undefined || given.token !== undefined
      ? undefined
      : await runTokenCommand(given.tokenCommand);
  const options: ContractOptions = firstToken === undefined ? given : { ...given, token: firstToken };
  const tokens =
    given.tokenCommand === undefined || options.token === undefined
      ? undefined
      : createTokenSource(given.tokenCommand, options.token);
  const profile = options.profile ?? "strict";
  const selection = selectChecks({
    ...(options.checks === undefined ? {} : { include: options.checks }),
    ...(options.excludeChecks === undefined ? {} : { exclude: options.excludeChecks }),
  });
  if (!selection.ok) throw new HarnessError(selection.error);
  const replay = checkCombinations(options);
  const recipients = resolveRecipients(options.accounts);
  if (options.target === undefined) refuseMagicAccounts(recipients);
  const seed = options.seed ?? randomInt(2 ** 31);
  const provider = compileProfile(await withSpecDomain(options.provider, options.specFile));
  const rateLimit = provider.resolved.rateLimit;
  return {
    options,
    tokens,
    profile,
    provider,
    pacer: rateLimit === undefined ? undefined : createPacer(rateLimit.requestsPerSecond),
    inProfile: checksOf(profile),
    selected: selection.checks,
    replay,
    // Written as the provider accepts them, where its profile states a domain.
    recipients: provider.given.domain ? inDomain(recipients, provider.domain) : recipients,
    seed,
    runs: replay === undefined ? (options.runs ?? DEFAULT_RUNS) : 1,
    spec: targetSpecOf(options, seed),
  };
}

/** Refuses options that only make sense together; returns the parsed replay path. */
function checkCombinations(options: ContractOptions): ReturnType<typeof parseReplayPath> {
  if (options.target !== undefined && options.token === undefined) {
    throw new HarnessError("--target needs --token (or --token-command)");
  }
  const replay = options.path === undefined ? undefined : parseReplayPath(options.path);
  if (options.path !== undefined && replay === undefined)
    throw new HarnessError(`--path '${options.path}' is not a replay path`);
  if (replay !== undefined && options.properties?.length !== 1) {
    throw new HarnessError("--path replays one property: give exactly one --property");
  }
  if ((options.saveRun !== undefined || options.recheck !== undefined) && options.target === undefined) {
    throw new HarnessError("--save-run and --recheck need --target: an in-process simulator is gone after the run");
  }
  if (options.saveRun !== undefined && options.recheck !== undefined) {
    throw new HarnessError("--save-run and --recheck do not go together: a recheck places no order");
  }
  if ((options.webhookListen === undefined) !== (options.webhookSecret === undefined)) {
    throw new HarnessError("--webhook-listen and --webhook-secret go together");
  }
  return replay;
}

function targetSpecOf(options: ContractOptions, seed: number): TargetSpec {
  if (options.target === undefined) {
    return {
      kind: "in_process",
      seed,
      timingMs: options.timingMs ?? DEFAULT_TIMING_MS,
      ...(options.simulator === undefined ? {} : { simulator: options.simulator }),
    };
  }
  return {
    kind: "remote",
    url: options.target,
    token: options.token as string,
    ...(options.otherToken === undefined ? {} : { otherToken: options.otherToken }),
    ...(options.adminUrl === undefined ? {} : { adminUrl: options.adminUrl }),
    ...(options.adminToken === undefined ? {} : { adminToken: options.adminToken }),
    ...(options.timingMs === undefined ? {} : { timingMs: options.timingMs }),
  };
}

function resolveRecipients(accounts: readonly string[] | undefined): readonly Recipient[] {
  if (accounts === undefined) return defaultRecipients();
  const recipients = accounts.map((account) => {
    const recipient = toRecipient(account);
    if (recipient === undefined)
      throw new HarnessError(`account '${account}' is not a Kenyan mobile number of one of the five operators`);
    return recipient;
  });
  if (recipients.length === 0) throw new HarnessError("the accounts list is empty");
  return recipients;
}

/**
 * In-process, statuses are predicted from the timing; a magic test number's
 * scripted outcome (fail, stay pending …) would contradict the model.
 */
function refuseMagicAccounts(recipients: readonly Recipient[]): void {
  const magic = new Set(MAGIC_ACCOUNTS.map((entry) => entry.account));
  const used = recipients.filter((recipient) => magic.has(recipient.e164));
  if (used.length > 0) {
    throw new HarnessError(
      `${used.map((r) => r.account).join(", ")}: magic test number(s) with a scripted outcome; the in-process run predicts every order's status, so use ordinary numbers`,
    );
  }
}

/**
 * The profile, its `domain` filled from the target's OpenAPI document when
 * the profile gives none and `--spec` names one (docs/real-providers.md).
 */
async function withSpecDomain(
  profile: ProviderProfile | undefined,
  specFile: string | undefined,
): Promise<ProviderProfile | undefined> {
  if (specFile === undefined || profile?.domain !== undefined) return profile;
  const domain = await domainFromSpecFile(specFile).catch((error: unknown) => {
    throw new HarnessError(`--spec ${specFile}: ${(error as Error).message}`);
  });
  return domain === undefined ? profile : { ...(profile ?? { profile: 1 }), domain };
}
