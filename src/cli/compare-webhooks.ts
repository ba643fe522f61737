/**
 * `compare --webhook-listen H:P --webhook-secret S [--webhook-url URL]`: the
 * target's webhooks, received by the command itself. The flags are
 * `contract`'s own entries of its flag table, so both commands name, explain
 * and read them (the secret's environment twin included) the same way.
 */
import { compileProfile } from "../contract/provider-profile/compile.ts";
import type { ProviderProfile } from "../contract/provider-profile/schema.ts";
import { startWebhookRecorder, type WebhookRecorder } from "../compare/observe-webhooks.ts";
import { assertListenAddressFree, parseListen } from "../harness/listen-address.ts";
import { CONTRACT_FLAGS } from "./contract.ts";
import type { Flag } from "./flag-table.ts";

const WEBHOOK_FLAG_NAMES: readonly string[] = ["webhook-listen", "webhook-secret", "webhook-url"];

const WEBHOOK_FLAGS: readonly Flag[] = CONTRACT_FLAGS.flatMap((section) => section.flags).filter((flag) =>
  WEBHOOK_FLAG_NAMES.includes(flag.name),
);

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
