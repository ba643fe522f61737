/**
 * `trigger`'s settings, normalised once: one table of defaults, and the
 * status, flags and variables read into one `TriggerConfig` (or a
 * `UsageError` saying why they cannot be). A flag wins over its variable,
 * the variable over the default.
 */
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { formatProfileIssues, loadProviderProfile } from "../contract/provider-profile/load.ts";
import type { ProviderProfile } from "../contract/provider-profile/schema.ts";
import { DEFAULT_STATUS_TABLE } from "../contract/status-codes.ts";
import { describeFinalStatuses, lookupFinalStatus, pathToFinalStatus, statusName } from "../contract/status-names.ts";
import { parseDuration } from "../contract/duration.ts";
import { parseForwardTarget } from "../webhooks/forward-target.ts";
import { isWebhookSecret } from "../webhooks/signing.ts";
import { unknownOptionMessage } from "./flag-table.ts";
import type { TriggerFaults, TriggerOrder } from "./trigger-run.ts";

/** Every default of `trigger`. */
const TRIGGER_DEFAULTS = Object.freeze({
  /** The running simulator, as `serve` starts it. */
  url: "http://127.0.0.1:4010",
  customer: "demo",
  /** On a real clock, how long to wait for delivery attempts. */
  waitMs: 10_000,
  amount: "100",
  account: "0712345678",
  /** Extra copies of the webhook. */
  duplicates: "0",
});

/** The most extra copies a scenario's `duplicate` effect may ask for. */
const MAX_DUPLICATES = 10;

export const USAGE = `usage: airtime-harness trigger STATUS [options]

Places an order, forces it to STATUS through the admin API, and prints the
order, the webhook that was sent and every delivery attempt with its answer.
STATUS is a final status by name or code: success, failed, timeout, reversed,
20, 2, … (a reversal is sent after a success, as the provider does).

a running simulator (the default):
  --url URL              the simulator (default ${TRIGGER_DEFAULTS.url}; env AIRTIME_SIM_URL)
  --admin-token TOKEN    its admin token, as \`serve\` printed it (env AIRTIME_SIM_ADMIN_TOKEN)
  --customer ID          whose order it is (default demo); its webhook endpoint receives it
  --wait DURATION        on a real clock, how long to wait for attempts (default 10s)

one command, no simulator running:
  --forward-to URL       start an in-process simulator on a virtual clock that delivers
                         to this handler; every retry runs at once
  --secret SECRET        the secret the handler verifies with (env AIRTIME_WEBHOOK_SECRET);
                         whsec_… for Standard Webhooks, any text for an HMAC profile
  --provider FILE        the provider profile the simulator speaks: its bodies, webhooks
                         and signing (with --url: the one \`serve --provider\` was given)

the order:
  --amount KES           default 100
  --account NUMBER       default 0712345678
  --service NAME         default: detected from the account
  --reference REF        default: trigger-STATUS-<random>
  --shortcode CODE       fund it from this wallet

webhook faults (the scenario effects QA uses):
  --duplicate N          also send N duplicates with the same webhook-id: N + 1
                         deliveries in all (default 0), as a scenario's duplicate: N
  --bad-signature        sign it with a wrong secret
  --delay DURATION       hold the first attempt back, e.g. 2s

  --json                 print one JSON document
  -h, --help             this text

exit: 0 the handler answered 2xx to every webhook, 1 it did not, 2 bad input
or a simulator that cannot be reached or refuses the admin token.`;

const OPTIONS = {
  url: { type: "string" },
  "admin-token": { type: "string" },
  customer: { type: "string" },
  wait: { type: "string" },
  "forward-to": { type: "string" },
  secret: { type: "string" },
  provider: { type: "string" },
  amount: { type: "string" },
  account: { type: "string" },
  service: { type: "string" },
  reference: { type: "string" },
  shortcode: { type: "string" },
  duplicate: { type: "string" },
  "bad-signature": { type: "boolean" },
  delay: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

type Target =
  | { readonly kind: "remote"; readonly url: string; readonly adminToken: string; readonly customerId: string }
  | { readonly kind: "in_process"; readonly forwardTo: string; readonly secret: string };

export interface TriggerConfig {
  readonly target: Target;
  readonly path: readonly number[];
  readonly order: TriggerOrder;
  readonly faults: TriggerFaults;
  readonly waitMs: number;
  readonly json: boolean;
  readonly provider: ProviderProfile | undefined;
}

export class UsageError extends Error {}

function durationOf(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const parsed = parseDuration(text);
  if (!parsed.ok) throw new UsageError(`--${flag}: ${parsed.error}`);
  return parsed.ms;
}

function statusPath(text: string | undefined): { path: number[]; name: string } {
  const valid = `valid statuses: ${describeFinalStatuses(DEFAULT_STATUS_TABLE)}`;
  if (text === undefined) throw new UsageError(`name the status to trigger\n${valid}`);
  const found = lookupFinalStatus(DEFAULT_STATUS_TABLE, text);
  switch (found.kind) {
    case "final":
      return { path: pathToFinalStatus(found.definition.code), name: statusName(found.definition.message) };
    case "not_final":
      throw new UsageError(`${found.definition.code} (${found.definition.message}) is not a final status\n${valid}`);
    case "ambiguous":
      throw new UsageError(`'${found.name}' names several statuses (${found.codes.join(", ")}): give the code`);
    case "unknown":
      throw new UsageError(`unknown status '${text}'\n${valid}`);
    default: {
      const unreachable: never = found;
      throw new Error(`unexpected lookup ${JSON.stringify(unreachable)}`);
    }
  }
}

function targetOf(
  values: ReturnType<typeof parse>["values"],
  env: NodeJS.ProcessEnv,
  provider: ProviderProfile | undefined,
): Target {
  if (values["forward-to"] !== undefined) {
    const remoteOnly = (["url", "admin-token", "customer"] as const).filter((flag) => values[flag] !== undefined);
    if (remoteOnly.length > 0) {
      throw new UsageError(
        `--forward-to starts its own simulator; --${remoteOnly.join(", --")} ${remoteOnly.length === 1 ? "is" : "are"} for a running one`,
      );
    }
    const forward = parseForwardTarget(values["forward-to"]);
    if (!forward.ok) throw new UsageError(`--forward-to: ${forward.error}`);
    const secret = values.secret ?? env.AIRTIME_WEBHOOK_SECRET;
    if (secret === undefined || secret === "") {
      throw new UsageError("--forward-to needs the handler's secret: --secret whsec_…");
    }
    // Standard Webhooks keys are whsec_ secrets; an HMAC key is whatever text the provider gave.
    const standard = (provider?.webhooks?.signing?.scheme ?? "standard-webhooks") === "standard-webhooks";
    if (standard && !isWebhookSecret(secret)) throw new UsageError("--secret must be whsec_ + base64 of 24–64 bytes");
    return { kind: "in_process", forwardTo: forward.url, secret };
  }
  if (values.secret !== undefined) throw new UsageError("--secret goes with --forward-to");
  const url = values.url ?? env.AIRTIME_SIM_URL ?? TRIGGER_DEFAULTS.url;
  const checked = parseForwardTarget(url);
  if (!checked.ok) throw new UsageError(`--url: ${checked.error}`);
  const adminToken = values["admin-token"] ?? env.AIRTIME_SIM_ADMIN_TOKEN;
  if (adminToken === undefined || adminToken === "") {
    throw new UsageError("give the simulator's admin token: --admin-token (as `serve` printed it)");
  }
  return {
    kind: "remote",
    url: checked.url.replace(/\/+$/, ""),
    adminToken,
    customerId: values.customer ?? TRIGGER_DEFAULTS.customer,
  };
}

function parse(args: string[]) {
  return parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: true });
}

async function providerOf(file: string | undefined): Promise<ProviderProfile | undefined> {
  if (file === undefined) return undefined;
  const loaded = await loadProviderProfile(file);
  if (!loaded.ok) throw new UsageError(`--provider: ${formatProfileIssues(file, loaded.issues)}`);
  return loaded.profile;
}

export async function parseTriggerArgs(args: string[], env: NodeJS.ProcessEnv): Promise<TriggerConfig | "help"> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    throw new UsageError(unknownOptionMessage(error, Object.keys(OPTIONS)) ?? (error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help === true) return "help";
  if (positionals.length > 1) throw new UsageError(`one status at a time, not ${positionals.join(" ")}`);
  const { path, name } = statusPath(positionals[0]);
  const amount = Number(values.amount ?? TRIGGER_DEFAULTS.amount);
  if (!(amount > 0) || !Number.isFinite(amount)) throw new UsageError("--amount must be a positive number of KES");
  const duplicates = Number(values.duplicate ?? TRIGGER_DEFAULTS.duplicates);
  if (!Number.isInteger(duplicates) || duplicates < 0 || duplicates > MAX_DUPLICATES) {
    throw new UsageError(`--duplicate must be a whole number from 0 to ${MAX_DUPLICATES} (extra copies)`);
  }
  const delayMs = durationOf("delay", values.delay);
  const provider = await providerOf(values.provider);
  return {
    provider,
    target: targetOf(values, env, provider),
    path,
    order: {
      amount,
      account: values.account ?? TRIGGER_DEFAULTS.account,
      reference: values.reference ?? `trigger-${name}-${randomBytes(4).toString("hex")}`,
      ...(values.service === undefined ? {} : { service: values.service }),
      ...(values.shortcode === undefined ? {} : { shortcode: values.shortcode }),
    },
    faults: {
      duplicates,
      badSignature: values["bad-signature"] === true,
      ...(delayMs === undefined ? {} : { delayMs }),
    },
    waitMs: durationOf("wait", values.wait) ?? TRIGGER_DEFAULTS.waitMs,
    json: values.json === true,
  };
}
