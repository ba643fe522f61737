/**
 * `--seed S --path P` replays one failing run exactly. For model runs the
 * path carries fast-check's shrink path and, after `@`, the commands' replay
 * path (which commands actually ran), because both are needed to rebuild the
 * same command sequence.
 */
import type { CheckName } from "./checks.ts";
import { CONTRACT_DEFAULTS, type ContractSettings } from "./contract-settings.ts";
import type { PropertyName } from "./property.ts";

export interface ReplayPath {
  readonly path: string;
  readonly replayPath: string | undefined;
}

export function formatReplayPath(path: string, replayPath: string | undefined): string {
  return replayPath === undefined || replayPath === "" ? path : `${path}@${replayPath}`;
}

export function parseReplayPath(text: string): ReplayPath | undefined {
  const at = text.indexOf("@");
  const path = at === -1 ? text : text.slice(0, at);
  if (!/^\d+(:\d+)*$/.test(path)) return undefined;
  return { path, replayPath: at === -1 ? undefined : text.slice(at + 1) };
}

/** Quotes one shell word when it needs it. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=,@%+-]+$/.test(word) || /^\$[A-Z_]+$/.test(word)
    ? word
    : `"${word.replace(/(["\\`])/g, "\\$1")}"`;
}

/**
 * The exact command that replays a failure: the run's target flags (secrets
 * as shell variables, never their values), then the failed check, the
 * property, the seed and the path.
 */
export function buildReplayCommand(
  settings: ContractSettings,
  failure: { readonly check: CheckName; readonly property: PropertyName; readonly seed: number; readonly path: string },
): string {
  const args: string[] = ["airtime-harness", "contract"];
  if (settings.target !== undefined) {
    args.push("--target", settings.target, "--token", "$AIRTIME_TOKEN");
    if (settings.otherToken !== undefined) args.push("--other-token", "$AIRTIME_OTHER_TOKEN");
    if (settings.adminUrl !== undefined)
      args.push("--admin-url", settings.adminUrl, "--admin-token", "$AIRTIME_ADMIN_TOKEN");
    if (settings.timingMs !== undefined) args.push("--timing", `${settings.timingMs}ms`);
  } else if (settings.timingMs !== undefined && settings.timingMs !== CONTRACT_DEFAULTS.timingMs) {
    args.push("--timing", `${settings.timingMs}ms`);
  }
  if (settings.webhookListen !== undefined) args.push("--webhook-listen", settings.webhookListen);
  if (settings.webhookSecret !== undefined) args.push("--webhook-secret", "$AIRTIME_WEBHOOK_SECRET");
  if (settings.webhookUrl !== undefined) args.push("--webhook-url", settings.webhookUrl);
  if (settings.budget !== undefined) args.push("--budget", String(settings.budget));
  if (settings.accountsFile !== undefined) args.push("--accounts", settings.accountsFile);
  if (settings.maxCommands !== CONTRACT_DEFAULTS.maxCommands) {
    args.push("--max-commands", String(settings.maxCommands));
  }
  if (settings.validateWithPrism) args.push("--validate-with-prism");
  if (settings.sharedAccount) args.push("--shared-account");
  if (settings.profile !== CONTRACT_DEFAULTS.profile) args.push("--profile", settings.profile);
  if (settings.providerFile !== undefined) args.push("--provider", settings.providerFile);
  if (settings.mappingFile !== undefined) args.push("--mapping", settings.mappingFile);
  if (settings.specFile !== undefined) args.push("--spec", settings.specFile);
  args.push(
    "--checks",
    failure.check,
    "--property",
    failure.property,
    "--seed",
    String(failure.seed),
    "--path",
    failure.path,
  );
  return args.map(shellWord).join(" ");
}
