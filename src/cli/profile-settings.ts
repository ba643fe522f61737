/**
 * `profile`'s settings, normalised once: one table of defaults, and the
 * probe flags `profile check` and `profile init --from-target` share read
 * into one frozen `ProbeSettings` (or the reason they cannot be). Both
 * place real orders on a target, so both pick the account and wait the same.
 */
import { parseDuration } from "../contract/duration.ts";
import { DEFAULT_ACCOUNTS } from "../harness/accounts.ts";
import { type ListenAddress, parseListen } from "../harness/listen-address.ts";
import { runTokenCommand } from "../harness/token-source.ts";

/** Every default of `profile`. */
export const PROFILE_DEFAULTS = Object.freeze({
  /** Where `profile init` writes its starter. */
  file: "provider-profile.yaml",
  /** Per request to the target. */
  timeout: "10s",
  /** The recipient of the orders the probe places. */
  account: DEFAULT_ACCOUNTS[0] as string,
});

/** The flags of a probe, as `parseArgs` read them. */
export interface ProbeFlags {
  readonly account?: string | undefined;
  readonly timeout?: string | undefined;
  readonly listen?: string | undefined;
  readonly "webhook-secret"?: string | undefined;
}

export interface ProbeSettings {
  readonly account: string;
  readonly timeoutMs: number;
  /** Where the target's webhook is received, with the secret to verify it; absent, it is not checked. */
  readonly webhook?: { readonly listen: ListenAddress; readonly webhookSecret: string };
}

function listenAddress(text: string): ListenAddress | undefined {
  try {
    return parseListen(text);
  } catch {
    return undefined;
  }
}

/**
 * @example
 * probeSettings({ timeout: "5s" }); // { account: "0712345678", timeoutMs: 5000 }
 * probeSettings({ listen: "host" }); // "--listen and --webhook-secret go together"
 */
export function probeSettings(flags: ProbeFlags): ProbeSettings | string {
  const secret = flags["webhook-secret"];
  if ((flags.listen === undefined) !== (secret === undefined)) return "--listen and --webhook-secret go together";
  const listen = flags.listen === undefined ? undefined : listenAddress(flags.listen);
  if (flags.listen !== undefined && listen === undefined) return `--listen '${flags.listen}' is not HOST:PORT`;
  const timeout = parseDuration(flags.timeout ?? PROFILE_DEFAULTS.timeout);
  if (!timeout.ok) return `--timeout: ${timeout.error}`;
  return Object.freeze({
    account: flags.account ?? PROFILE_DEFAULTS.account,
    timeoutMs: timeout.ms,
    ...(listen === undefined || secret === undefined ? {} : { webhook: { listen, webhookSecret: secret } }),
  });
}

/** The bearer token: `--token`, or what `--token-command` prints; absent when neither is given. */
export async function probeToken(flags: {
  readonly token?: string | undefined;
  readonly "token-command"?: string | undefined;
}): Promise<string | undefined> {
  const command = flags["token-command"];
  return flags.token ?? (command === undefined ? undefined : await runTokenCommand(command));
}
