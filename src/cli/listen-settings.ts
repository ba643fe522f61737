/**
 * `listen`'s settings, normalised once: one table of defaults, and the flags
 * and variables read into one frozen `ListenConfig` (or the reason they
 * cannot be). A flag wins over its variable, the variable over the default.
 */
import { readFileSync, readSync } from "node:fs";
import { parseArgs } from "node:util";
import { compileProfile, type CompiledProfile } from "../contract/provider-profile/compile.ts";
import { formatProfileIssues, parseProviderProfile } from "../contract/provider-profile/load.ts";
import { parseForwardTarget } from "../webhooks/forward-target.ts";
import { isWebhookSecret } from "../webhooks/signing.ts";
import { unknownOptionMessage } from "./flag-table.ts";

const USAGE = `usage: airtime-harness listen --secret whsec_... [options]

Receives webhooks, verifies their Standard Webhooks signature, and prints
one line per verified delivery: time, webhook-id, reference, status, message.
Rejected requests (bad signature, stale timestamp) go to stderr with the reason.
A repeated webhook-id is answered like the first, counted, and not printed again.
With --forward-to, every attempt is printed and passed on, and the handler's
status (and latency) is added to its line.

options:
  --port P        port to listen on (default 4020; 0 = any free port)      AIRTIME_LISTEN_PORT
  --host H        address to bind (default 127.0.0.1)                      AIRTIME_LISTEN_HOST
  --secret S      the whsec_ secret to verify with; repeat for rotation    AIRTIME_WEBHOOK_SECRET
                  (the variable takes several, separated by spaces or commas);
                  a secret of - reads them from stdin (secret | listen --secret -)
  --status N      HTTP status to answer verified requests with (default 200;
                  e.g. 503 to watch the sender retry, 410 to disable it)   AIRTIME_LISTEN_STATUS
  --forward-to URL
                  pass every attempt on, byte for byte, retries and duplicates
                  too, to the handler under test, and answer with its status
                  (502 when it cannot be reached)                          AIRTIME_LISTEN_FORWARD_TO
  --provider FILE the sender speaks this provider profile's dialect: its
                  signature scheme is checked, its delivery id dedupes, its
                  body is read for the line (with --forward-to its headers
                  are passed on); an HMAC profile takes any secret text
  --json          print each delivery as one JSON line (headers, payload)
  -h, --help      this text

Stop with Ctrl-C.`;

/** Every default of `listen`. */
const LISTEN_DEFAULTS = Object.freeze({
  port: 4020,
  host: "127.0.0.1",
  /** The status verified requests are answered with. */
  status: 200,
});

/** How long reading stdin waits before trying a pipe whose writer has not written yet again. */
const STDIN_RETRY_MS = 10;

export interface ListenConfig {
  readonly port: number;
  readonly host: string;
  readonly secrets: readonly string[];
  readonly status: number;
  readonly json: boolean;
  /** The handler under test; absent: answer with `status` and dedupe. */
  readonly forwardTo?: string;
  /** The provider profile the sender speaks. */
  readonly provider?: CompiledProfile;
}

export type ParseResult =
  { readonly kind: "run"; readonly config: ListenConfig } | { readonly kind: "exit"; readonly code: number };

function fail(message: string): ParseResult {
  console.error(`airtime-harness listen: ${message}\n\n${USAGE}`);
  return { kind: "exit", code: 2 };
}

/** Several secrets in one text (a variable, stdin), separated by spaces, commas or lines. */
function splitSecrets(text: string): string[] {
  return text.split(/[\s,]+/).filter((secret) => secret !== "");
}

/** The status `listen` answers with, or why the text is not one. */
function statusFrom(text: string): number | string {
  const status = Number(text);
  if (!/^\d{3}$/.test(text) || status < 200 || status > 599)
    return `--status must be an HTTP status 200–599, not '${text}'`;
  return status;
}

export function parseListenArgs(args: string[], env: NodeJS.ProcessEnv): ParseResult {
  let values: ReturnType<typeof parse>["values"];
  try {
    values = parse(args).values;
  } catch (error) {
    return fail(unknownOptionMessage(error, Object.keys(OPTIONS)) ?? (error as Error).message);
  }
  if (values.help === true) {
    console.log(USAGE);
    return { kind: "exit", code: 0 };
  }
  const portText = values.port ?? env.AIRTIME_LISTEN_PORT ?? String(LISTEN_DEFAULTS.port);
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65_535) return fail(`--port must be 0–65535, not '${portText}'`);
  const status = statusFrom(values.status ?? env.AIRTIME_LISTEN_STATUS ?? String(LISTEN_DEFAULTS.status));
  if (typeof status === "string") return fail(status);
  if (values.secret?.includes("-") === true && process.stdin.isTTY === true) {
    return fail("--secret - reads the secret from stdin, a terminal here: pipe it in (airtime-harness secret | …)");
  }
  const given = values.secret?.flatMap((secret) => (secret === "-" ? splitSecrets(readStdinSync()) : [secret]));
  const secrets = given ?? splitSecrets(env.AIRTIME_WEBHOOK_SECRET ?? "");
  if (secrets.length === 0) return fail("give the secret to verify with: --secret whsec_...");
  const provider = providerFor(values.provider, secrets);
  if (typeof provider === "string") return fail(provider);
  const forwardText = values["forward-to"] ?? env.AIRTIME_LISTEN_FORWARD_TO;
  const forward = forwardText === undefined || forwardText === "" ? undefined : parseForwardTarget(forwardText);
  if (forward?.ok === false) return fail(`--forward-to: ${forward.error}`);
  if (forward !== undefined && values.status !== undefined) {
    return fail("--status and --forward-to exclude each other: the handler's status is the answer");
  }
  return {
    kind: "run",
    config: Object.freeze({
      port,
      host: values.host ?? env.AIRTIME_LISTEN_HOST ?? LISTEN_DEFAULTS.host,
      secrets,
      status,
      json: values.json === true,
      ...(forward === undefined ? {} : { forwardTo: forward.url }),
      ...(provider === undefined ? {} : { provider }),
    }),
  };
}

/**
 * The `--provider` profile (absent: our own), or why it cannot be used with
 * these secrets. Standard Webhooks keys are whsec_ secrets; an HMAC key is
 * whatever text the provider gave.
 */
function providerFor(file: string | undefined, secrets: readonly string[]): CompiledProfile | undefined | string {
  const provider = file === undefined ? undefined : readProvider(file);
  if (typeof provider === "string") return provider;
  const standard = (provider?.resolved.signing.scheme ?? "standard-webhooks") === "standard-webhooks";
  const invalid = standard ? secrets.find((secret) => !isWebhookSecret(secret)) : undefined;
  if (invalid !== undefined) return `'${invalid.slice(0, 12)}…' is not a whsec_ secret (base64 of 24–64 bytes)`;
  return provider;
}

/** The compiled profile, or why it cannot be used. */
function readProvider(file: string): CompiledProfile | string {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    return `--provider: ${(error as Error).message}`;
  }
  const loaded = parseProviderProfile(text);
  return loaded.ok ? compileProfile(loaded.profile) : `--provider: ${formatProfileIssues(file, loaded.issues)}`;
}

const OPTIONS = {
  port: { type: "string" },
  host: { type: "string" },
  secret: { type: "string", multiple: true },
  status: { type: "string" },
  "forward-to": { type: "string" },
  provider: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

function parse(args: string[]) {
  return parseArgs({ args, strict: true, allowPositionals: false, options: OPTIONS });
}

/**
 * All of stdin, read synchronously. A pipe whose writer has not written yet
 * can be non-blocking, and then `readFileSync(0)` fails with EAGAIN instead
 * of waiting: `airtime-harness secret | airtime-harness listen --secret -`
 * starts both processes at once, so the reader must wait for the writer.
 */
function readStdinSync(): string {
  const chunks: Buffer[] = [];
  const buffer = Buffer.alloc(64 * 1024);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    let read: number;
    try {
      read = readSync(0, buffer, 0, buffer.length, null);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
      Atomics.wait(pause, 0, 0, STDIN_RETRY_MS);
      continue;
    }
    if (read === 0) return Buffer.concat(chunks).toString("utf8");
    chunks.push(Buffer.from(buffer.subarray(0, read)));
  }
}
