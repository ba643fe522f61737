/**
 * `airtime-harness profile`: help for writing a provider profile.
 * `profile check FILE --target URL --token T` shows what each pointer and
 * rule finds on the live target (exit 1 on any miss); `profile init [FILE]`
 * writes a commented starter file, or, with `--from-target` or
 * `--from-openapi`, the profile inferred from the target or its document.
 */
import { access, writeFile, readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { compileProfile } from "../contract/provider-profile/compile.ts";
import { formatProfileIssues, loadProviderProfile } from "../contract/provider-profile/load.ts";
import { checkProfile } from "../harness/profile-check.ts";
import { PROFILE_DEFAULTS, probeSettings, probeToken } from "./profile-settings.ts";
import { parse as parseYaml } from "yaml";
import { inferFromTarget, type InferredProfile } from "../learn/infer-from-target.ts";
import { combineInferences, inferFromOpenApi } from "../learn/infer-from-openapi.ts";
import { profileYaml } from "../learn/profile-yaml.ts";

const INFER_USAGE = `       airtime-harness profile init --from-target URL --token TOKEN [--other-token TOKEN]
                                   [--listen HOST:PORT --webhook-secret SECRET] [--budget KES]
                                   [--account NUMBER] [--timeout DUR] FILE
       airtime-harness profile init --from-openapi DOCUMENT [--from-target URL --token TOKEN …] FILE`;

const USAGE = `usage: airtime-harness profile check FILE --target URL (--token TOKEN | --token-command CMD)
                                    [--account NUMBER] [--listen HOST:PORT --webhook-secret SECRET] [--timeout DUR]
       airtime-harness profile init [FILE]
${INFER_USAGE}

check   place one order of the smallest amount, replay it, look it up until final, read the
        balance, provoke one 409 and wait for the order's webhook; print what each pointer and
        rule of FILE found (✓ or ✗). Exit 1 on any miss, 2 on a usage error.
init    write a commented starter profile to FILE (default provider-profile.yaml); with --from-target,
        probe the target inside a budget (default three orders of the smallest amount it takes),
        printing every request, and write the profile inferred, each field commented; with
        --from-openapi DOCUMENT, write it from the provider's OpenAPI document instead.`;

const WEBHOOK_NOT_CHECKED =
  "- webhook not checked: add --listen HOST:PORT --webhook-secret SECRET, and set the target to post " +
  "its webhooks to http://HOST:PORT/webhooks, to check its signature and fields too";

export async function profile(args: string[]): Promise<number> {
  const [action, ...rest] = args;
  if (action === undefined || action === "--help" || action === "-h") {
    console.log(USAGE);
    return action === undefined ? 2 : 0;
  }
  if (action === "init") return init(rest);
  if (action === "check") return check(rest);
  console.error(`airtime-harness profile: unknown action '${action}'\n\n${USAGE}`);
  return 2;
}

const wantsHelp = (args: readonly string[]) => args.includes("--help") || args.includes("-h");

async function init(args: string[]): Promise<number> {
  if (wantsHelp(args)) {
    console.log(USAGE);
    return 0;
  }
  if (args.some((arg) => arg.startsWith("--from-target") || arg.startsWith("--from-openapi"))) {
    return initFromTarget(args, USAGE);
  }
  const option = args.find((arg) => arg.startsWith("-"));
  if (option !== undefined || args.length > 1) {
    console.error(`airtime-harness profile init: takes one FILE, not '${option ?? args.join(" ")}'\n\n${USAGE}`);
    return 2;
  }
  const [file = PROFILE_DEFAULTS.file] = args;
  if (await fileExists(file)) {
    console.error(`airtime-harness profile init: ${file} exists; not overwritten`);
    return 2;
  }
  await writeFile(file, PROFILE_STARTER, "utf8");
  console.log(`wrote ${file}: fill it in, then run airtime-harness profile check ${file} --target URL --token TOKEN`);
  return 0;
}

async function check(args: string[]): Promise<number> {
  if (wantsHelp(args)) {
    console.log(USAGE);
    return 0;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        target: { type: "string" },
        token: { type: "string" },
        "token-command": { type: "string" },
        account: { type: "string" },
        listen: { type: "string" },
        "webhook-secret": { type: "string" },
        timeout: { type: "string" },
      },
    });
  } catch (error) {
    return usageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const file = positionals[0];
  if (file === undefined || values.target === undefined) return usageError("needs FILE and --target");
  const probe = probeSettings(values);
  if (typeof probe === "string") return usageError(probe);
  const loaded = await loadProviderProfile(file);
  if (!loaded.ok) {
    console.error(formatProfileIssues(file, loaded.issues));
    return 2;
  }
  const token = await probeToken(values);
  if (token === undefined) return usageError("needs --token or --token-command");
  const lines = await checkProfile(compileProfile(loaded.profile), {
    target: values.target,
    token,
    account: probe.account,
    timeoutMs: probe.timeoutMs,
    ...probe.webhook,
  });
  for (const line of lines) console.log(`${line.ok ? " " : "!"} ${line.text}`);
  // A check that passes without ever looking at the webhook must say so, and how to look.
  if (probe.webhook === undefined) console.log(WEBHOOK_NOT_CHECKED);
  const misses = lines.filter((line) => !line.ok);
  if (misses.length === 0) {
    console.log(`\n${file}: every pointer and rule found what it names`);
    return 0;
  }
  console.log(
    `\n${file}: ${misses.length} miss${misses.length === 1 ? "" : "es"}: ${misses.map((m) => m.text.split(" → ")[0]).join("; ")}`,
  );
  return 1;
}

function usageError(message: string): number {
  console.error(`airtime-harness profile check: ${message}\n\n${USAGE}`);
  return 2;
}

/** The commented starter file `airtime-harness profile init` writes: our spec, every section explained. */
export const PROFILE_STARTER = `# yaml-language-server: $schema=https://unpkg.com/airtime-harness/spec/provider-profile.schema.json
#
# A provider profile: every dimension the airtime interface leaves open, for
# one provider. Fill in what the provider's documentation says and delete
# the rest: a section left out means our spec's behaviour, and under
# --profile interface "not judged" where the interface is silent.
# Then: airtime-harness profile check THIS-FILE --target URL --token TOKEN
profile: 1
name: My provider

bodies: # RFC 6901 JSON pointers: where each body keeps each field
  order: # the send-airtime answer (HTTP 200); §2.3: its status is a number
    id: /id
    reference: /reference
    status: /status
    message: /message
  lookup: # GET /v1/airtime/{reference}
    id: /id
    reference: /reference
    status: /status
    amount: /amount
    # passthrough: # our spec's other members this body keeps, each at its pointer; the rest are left out
    #   message: /message
    #   service: /service
    #   account: /account
    #   currency: /currency
    #   shortcode: /shortcode
    #   createdAt: /createdAt
    #   updatedAt: /updatedAt
    #   history: /history # written in this profile's statuses
  webhook:
    id: /id
    reference: /reference
    status: /status
    amount: /amount
    # passthrough:
    #   message: /message
    #   final: /final
    #   service: /service
    #   account: /account
    #   balance: /balance
    #   currency: /currency
    #   shortcode: /shortcode
    #   timestamp: /timestamp
  balance: # GET /v1/balance
    amount: /amount
    # passthrough: { status: /status, currency: /currency, shortcode: /shortcode, wallets: /wallets }
  error: # any 4xx body; the 409 code idempotency_payload_mismatch is read here
    code: /code
    message: /detail
    # passthrough: { type: /type, title: /title, status: /status, instance: /instance, errors: /errors }

money: number # number (10) or string ("10.00")

statuses:
  values: code # code or word: how the lookup and the webhook write a status
  table: # class: pending | success | failed | reversed (failed and reversed refund)
    - { code: 0, word: PENDING, class: pending, message: Pending }
    - { code: 20, word: SUCCESS, class: success, message: Success }
    - { code: 2, word: FAILED, class: failed, message: Failed }
    - { code: 8, word: REVERSED, class: reversed, message: Reversed }
  transitions: # legal moves, by class, code or word
    - [pending, success]
    - [pending, failed]
    - [success, reversed]

http: # §7: the HTTP status of each error, where known (one left out is not judged)
  invalidInput: 400
  unauthorized: 401
  insufficientBalance: 402 # 200 means: a failed order without an id
  notFound: 404
  wrongMethod: 405

# errorCodes: # the provider's codes, judged where given
#   invalidInput: INVALID_REQUEST
#   unauthorized: UNAUTHORIZED

webhooks:
  event: { pointer: /type, values: [airtime.status] } # which deliveries are order-status events
  deliveryId: { header: webhook-id } # or { pointer: /deliveryId }
  signing: { scheme: standard-webhooks } # or none, or:
  # signing: { scheme: hmac, header: X-Signature, hash: sha256, encoding: hex, prefix: "sha256=",
  #            signed: timestamp.body, timestampHeader: X-Timestamp }
  # the secret is given with --webhook-secret, never in this file

# domain: # what the provider accepts: generated orders stay inside it
#   amount: { min: 10, max: 5000, decimals: 0 }
#   reference: { pattern: "^[A-Za-z0-9-]{6,24}$", maxLength: 24 }
#   accounts: [local, international] # local, international, e164, short
#   services: [safaricom, airtel, telkom]
#   currency: KES

# rateLimit: { requestsPerSecond: 20 } # a 429 is waited out, never a failure under interface
`;

// `profile init --from-target URL` (or `--from-openapi DOCUMENT`, or both):
// writes a provider profile inferred by probing the target, each field
// commented with how it was found. Prints every request the probe sends;
// writes nothing but FILE, and never overwrites it.

const INFER_OPTIONS = {
  "from-target": { type: "string" },
  "from-openapi": { type: "string" },
  token: { type: "string" },
  "other-token": { type: "string" },
  listen: { type: "string" },
  "webhook-secret": { type: "string" },
  budget: { type: "string" },
  account: { type: "string" },
  timeout: { type: "string" },
} as const;

async function initFromTarget(args: string[], usage: string): Promise<number> {
  const fail = (message: string) => {
    console.error(`airtime-harness profile init: ${message}\n\n${usage}`);
    return 2;
  };
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: INFER_OPTIONS });
  } catch (error) {
    return fail((error as Error).message);
  }
  const { values, positionals } = parsed;
  const file = positionals[0];
  if (file === undefined || positionals.length > 1) return fail("takes one FILE");
  const document = values["from-openapi"];
  if (document !== undefined) {
    if (values["from-target"] === undefined) return initFromOpenApi(document, file, fail);
  }
  if (values["from-target"] === undefined || values.token === undefined) return fail("needs --from-target and --token");
  const probe = probeSettings(values);
  if (typeof probe === "string") return fail(probe);
  const budget = values.budget === undefined ? undefined : Number(values.budget);
  if (budget !== undefined && !(budget > 0)) return fail(`--budget '${values.budget}' is not an amount of KES`);
  if (await fileExists(file)) return fail(`${file} exists; not overwritten`);
  const fromDocument = document === undefined ? undefined : await inferenceFromDocument(document);
  if (typeof fromDocument === "string") return fail(fromDocument);
  const result = await inferFromTarget(
    {
      target: values["from-target"],
      token: values.token,
      ...(values["other-token"] === undefined ? {} : { otherToken: values["other-token"] }),
      account: probe.account,
      ...probe.webhook,
      ...(budget === undefined ? {} : { budget }),
      timeoutMs: probe.timeoutMs,
    },
    (line) => console.log(line),
  );
  if (!result.ok) {
    console.error(`airtime-harness profile init: ${result.reason} (spent KES ${result.spent})`);
    return 1;
  }
  const header = `Inferred by probing ${values["from-target"]} (KES ${result.spent} spent of a budget of ${result.budget}); review each comment.`;
  const inferred = fromDocument === undefined ? result.inferred : combineInferences(result.inferred, fromDocument);
  await writeFile(file, profileYaml(inferred, header), "utf8");
  console.log(`\nspent KES ${result.spent} of a budget of KES ${result.budget}`);
  for (const what of inferred.missing) console.log(`- not inferred: ${what}`);
  console.log(`wrote ${file}: check it with airtime-harness profile check ${file} --target URL --token TOKEN`);
  return 0;
}

/** The profile the document gives, or why it cannot be read. */
export async function inferenceFromDocument(document: string): Promise<InferredProfile | string> {
  let raw: unknown;
  try {
    raw = parseYaml(await readFile(document, "utf8"));
  } catch (error) {
    return `${document}: ${(error as Error).message}`;
  }
  if (typeof raw !== "object" || raw === null) return `${document} is not an OpenAPI document`;
  return inferFromOpenApi(raw as Record<string, unknown>);
}

async function initFromOpenApi(document: string, file: string, fail: (message: string) => number): Promise<number> {
  if (await fileExists(file)) return fail(`${file} exists; not overwritten`);
  const inferred = await inferenceFromDocument(document);
  if (typeof inferred === "string") return fail(inferred);
  await writeFile(file, profileYaml(inferred, `Inferred from ${document}; review each comment.`), "utf8");
  for (const what of inferred.missing) console.log(`- not inferred: ${what}`);
  console.log(`wrote ${file}: check it with airtime-harness profile check ${file} --target URL --token TOKEN`);
  return 0;
}

/** Whether a file is there already: neither command writes over one. */
export async function fileExists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}
