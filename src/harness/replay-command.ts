/**
 * The exact command that replays a failure: the run's target flags (secrets
 * as shell variables, never their values), then the failed check, the
 * property, the seed and the path.
 */

import type { CheckName } from "./checks.ts";
import { type ContractOptions, DEFAULT_MAX_COMMANDS, DEFAULT_TIMING_MS } from "./contract-options.ts";
import type { PropertyName } from "./property.ts";
import { shellWord } from "./replay.ts";

export function buildReplayCommand(
  options: ContractOptions,
  failure: { readonly check: CheckName; readonly property: PropertyName; readonly seed: number; readonly path: string },
): string {
  const args: string[] = ["airtime-harness", "contract"];
  if (options.target !== undefined) {
    args.push("--target", options.target, "--token", "$AIRTIME_TOKEN");
    if (options.otherToken !== undefined) args.push("--other-token", "$AIRTIME_OTHER_TOKEN");
    if (options.adminUrl !== undefined)
      args.push("--admin-url", options.adminUrl, "--admin-token", "$AIRTIME_ADMIN_TOKEN");
    if (options.timingMs !== undefined) args.push("--timing", `${options.timingMs}ms`);
  } else if (options.timingMs !== undefined && options.timingMs !== DEFAULT_TIMING_MS) {
    args.push("--timing", `${options.timingMs}ms`);
  }
  if (options.webhookListen !== undefined) args.push("--webhook-listen", options.webhookListen);
  if (options.webhookSecret !== undefined) args.push("--webhook-secret", "$AIRTIME_WEBHOOK_SECRET");
  if (options.webhookUrl !== undefined) args.push("--webhook-url", options.webhookUrl);
  if (options.budget !== undefined) args.push("--budget", String(options.budget));
  if (options.accountsFile !== undefined) args.push("--accounts", options.accountsFile);
  if (options.maxCommands !== undefined && options.maxCommands !== DEFAULT_MAX_COMMANDS) {
    args.push("--max-commands", String(options.maxCommands));
  }
  if (options.validateWithPrism === true) args.push("--validate-with-prism");
  if (options.sharedAccount === true) args.push("--shared-account");
  if (options.profile !== undefined && options.profile !== "strict") args.push("--profile", options.profile);
  if (options.providerFile !== undefined) args.push("--provider", options.providerFile);
  if (options.mappingFile !== undefined) args.push("--mapping", options.mappingFile);
  if (options.specFile !== undefined) args.push("--spec", options.specFile);
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
