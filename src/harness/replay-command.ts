/**
 * The exact command that replays a failure: the run's target flags (secrets
 * as shell variables, never their values), then the failed check, the
 * property, the seed and the path.
 */

import type { CheckName } from "./checks.ts";
import { CONTRACT_DEFAULTS, type ContractSettings } from "./contract-settings.ts";
import type { PropertyName } from "./property.ts";
import { shellWord } from "./replay.ts";

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
