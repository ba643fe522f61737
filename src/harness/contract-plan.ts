/**
 * The first step of a contract run: the options normalised into settings
 * (contract-settings.ts), checked, and resolved into a plan (selection,
 * replay path, recipients, runs, target spec) before anything is started,
 * so unusable options fail before a port opens.
 */
import { MAGIC_ACCOUNTS } from "../scenarios/magic-accounts.ts";
import { type CompiledProfile, compileProfile } from "../contract/provider-profile/compile.ts";
import { createPacer, type Pacer } from "./paced-client.ts";
import { domainFromSpecFile } from "./spec-domain.ts";
import type { ProviderProfile } from "../contract/provider-profile/schema.ts";
import { defaultRecipients, inDomain, type Recipient, toRecipient } from "./accounts.ts";
import { HarnessError } from "./checker.ts";
import { type CheckName, selectChecks } from "./checks.ts";
import type { ContractOptions } from "./contract-options.ts";
import { type ContractSettings, contractSettings } from "./contract-settings.ts";
import { checksOf } from "./strictness.ts";
import { parseReplayPath } from "./replay.ts";
import type { TargetSpec } from "./target.ts";
import { createTokenSource, runTokenCommand, type TokenSource } from "./token-source.ts";

export interface ContractPlan {
  /** The options with every default filled in, and the first token of `--token-command`. */
  readonly settings: ContractSettings;
  readonly tokens: TokenSource | undefined;
  readonly provider: CompiledProfile;
  /** Paces every request of the run to the profile's stated rate limit; absent when it states none. */
  readonly pacer: Pacer | undefined;
  readonly inProfile: ReadonlySet<CheckName>;
  readonly selected: ReadonlySet<CheckName>;
  readonly replay: ReturnType<typeof parseReplayPath>;
  readonly recipients: readonly Recipient[];
  /** Runs per property: the settings' runs, or one when replaying a path. */
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
  const settings = contractSettings(firstToken === undefined ? given : { ...given, token: firstToken });
  const tokens =
    given.tokenCommand === undefined || settings.token === undefined
      ? undefined
      : createTokenSource(given.tokenCommand, settings.token);
  const selection = selectChecks({
    ...(settings.checks === undefined ? {} : { include: settings.checks }),
    ...(settings.excludeChecks === undefined ? {} : { exclude: settings.excludeChecks }),
  });
  if (!selection.ok) throw new HarnessError(selection.error);
  const replay = checkCombinations(settings);
  const recipients = resolveRecipients(settings.accounts);
  if (settings.target === undefined) refuseMagicAccounts(recipients);
  const provider = compileProfile(await withSpecDomain(settings.provider, settings.specFile));
  const rateLimit = provider.resolved.rateLimit;
  return {
    settings,
    tokens,
    provider,
    pacer: rateLimit === undefined ? undefined : createPacer(rateLimit.requestsPerSecond),
    inProfile: checksOf(settings.profile),
    selected: selection.checks,
    replay,
    // Written as the provider accepts them, where its profile states a domain.
    recipients: provider.given.domain ? inDomain(recipients, provider.domain) : recipients,
    runs: replay === undefined ? settings.runs : 1,
    spec: targetSpecOf(settings),
  };
}

/** Refuses options that only make sense together; returns the parsed replay path. */
function checkCombinations(settings: ContractSettings): ReturnType<typeof parseReplayPath> {
  if (settings.target !== undefined && settings.token === undefined) {
    throw new HarnessError("--target needs --token (or --token-command)");
  }
  const replay = settings.path === undefined ? undefined : parseReplayPath(settings.path);
  if (settings.path !== undefined && replay === undefined)
    throw new HarnessError(`--path '${settings.path}' is not a replay path`);
  if (replay !== undefined && settings.properties?.length !== 1) {
    throw new HarnessError("--path replays one property: give exactly one --property");
  }
  if ((settings.saveRun !== undefined || settings.recheck !== undefined) && settings.target === undefined) {
    throw new HarnessError("--save-run and --recheck need --target: an in-process simulator is gone after the run");
  }
  if (settings.saveRun !== undefined && settings.recheck !== undefined) {
    throw new HarnessError("--save-run and --recheck do not go together: a recheck places no order");
  }
  if ((settings.webhookListen === undefined) !== (settings.webhookSecret === undefined)) {
    throw new HarnessError("--webhook-listen and --webhook-secret go together");
  }
  return replay;
}

function targetSpecOf(settings: ContractSettings): TargetSpec {
  if (settings.target === undefined) {
    return {
      kind: "in_process",
      seed: settings.seed,
      // The settings give the in-process simulator its default timing.
      timingMs: settings.timingMs as number,
      ...(settings.simulator === undefined ? {} : { simulator: settings.simulator }),
    };
  }
  return {
    kind: "remote",
    url: settings.target,
    token: settings.token as string,
    ...(settings.otherToken === undefined ? {} : { otherToken: settings.otherToken }),
    ...(settings.adminUrl === undefined ? {} : { adminUrl: settings.adminUrl }),
    ...(settings.adminToken === undefined ? {} : { adminToken: settings.adminToken }),
    ...(settings.timingMs === undefined ? {} : { timingMs: settings.timingMs }),
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
