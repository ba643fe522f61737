/**
 * Options of a contract run — the programmatic face of
 * `airtime-harness contract`. One schema: the command line's flags give a
 * partial options object that it parses once (text to numbers, durations,
 * lists), and a program passes the same fields already typed. Their
 * defaults are filled in once, by `contractSettings` (contract-settings.ts).
 */
import { z } from "zod";
import { parseDuration } from "../contract/duration.ts";
import type { SimulatorOptions } from "../simulator/simulator-options.ts";
import type { ProviderProfile } from "../contract/provider-profile/schema.ts";
import { STRICTNESS_LEVELS } from "./strictness.ts";
import { PROPERTY_NAMES, type PropertyName } from "./property.ts";

function positiveInt() {
  const rule = "must be a positive integer";
  return z.preprocess(
    (value) => (typeof value === "string" && value.trim() !== "" ? Number(value) : value),
    z.int({ error: rule }).positive(rule),
  );
}

/** Milliseconds: a number, or text such as `500ms`, `2s` (bare digits are ms). */
const DurationMs = z.union([
  z.number().min(0),
  z.string().transform((text, ctx) => {
    if (/^\d+$/.test(text)) return Number(text);
    const parsed = parseDuration(text);
    if (parsed.ok) return parsed.ms;
    ctx.issues.push({ code: "custom", message: parsed.error, input: text });
    return z.NEVER;
  }),
]);

/** A list, or comma-separated text. */
function names<T extends z.ZodType>(item: T) {
  return z.preprocess(
    (value) =>
      typeof value === "string"
        ? value
            .split(",")
            .map((part) => part.trim())
            .filter((part) => part !== "")
        : value,
    z.array(item),
  );
}

export const ContractOptionsSchema = z.object({
  target: z.string().optional().meta({
    description: "The deployment's base URL; omitted → an in-process simulator on a virtual clock.",
  }),
  token: z.string().optional().meta({ description: "Bearer token of the customer the harness acts as." }),
  tokenCommand: z.string().optional().meta({
    description:
      "A shell command that prints the customer's bearer token; run again when a token that worked gets 401 (it expired).",
  }),
  otherToken: z.string().optional().meta({ description: "A second customer's token, for customer_isolation." }),
  adminUrl: z.string().optional().meta({ description: "Admin API base URL: sim-only powers." }),
  adminToken: z.string().optional(),
  timingMs: DurationMs.optional().meta({
    description:
      "The fixed pending → final delay, ms: the in-process simulator's (default 2000), or a remote one's on a virtual clock.",
  }),
  checks: names(z.string()).optional().meta({ description: "Only these checks (default: all)." }),
  excludeChecks: names(z.string()).optional(),
  properties: names(
    z.enum(PROPERTY_NAMES, {
      error: (issue) => `unknown property ${String(issue.input)} (known: ${PROPERTY_NAMES.join(", ")})`,
    }),
  )
    .optional()
    .meta({ description: "Only these properties (default: all that apply). Required with `path`." }),
  runs: positiveInt()
    .optional()
    .meta({ description: "Runs per property. Default 100 (model runs against a real clock: 25)." }),
  seed: z
    .preprocess(
      (value) => (typeof value === "string" && value.trim() !== "" ? Number(value) : value),
      z.int({ error: "must be an integer" }),
    )
    .optional()
    .meta({ description: "fast-check seed. Default: random." }),
  path: z.string().optional().meta({ description: "Replays one counterexample (`--path` from a failure report)." }),
  maxCommands: positiveInt().optional().meta({ description: "Longest command sequence of a model run. Default 20." }),
  maxFailures: positiveInt().optional().meta({ description: "Stop once this many checks have failed." }),
  budget: z
    .preprocess(
      (value) => (typeof value === "string" && value.trim() !== "" ? Number(value) : value),
      z.number({ error: "must be an amount ≥ 0 (KES)" }).min(0, "must be an amount ≥ 0 (KES)"),
    )
    .optional()
    .meta({ description: "Most KES the run may spend, retries included; never exceeded." }),
  accounts: z
    .array(z.string())
    .readonly()
    .optional()
    .meta({ description: "The only recipient numbers the harness may use." }),
  accountsFile: z.string().optional().meta({ description: "Where `accounts` came from, for the replay command." }),
  webhookListen: z.string().optional().meta({ description: "`HOST:PORT` for the webhook receiver." }),
  webhookSecret: z.string().optional().meta({ description: "The `whsec_…` secret the deployment signs with." }),
  webhookUrl: z.string().optional().meta({
    description: "The URL the target posts webhooks to, when it differs from the receiver's own (a tunnel, a proxy).",
  }),
  finalTimeoutMs: DurationMs.optional().meta({
    description: "Wall ms an order may take to become final against a real clock. Default 30,000.",
  }),
  webhookTimeoutMs: DurationMs.optional().meta({
    description: "Wall ms to wait for a webhook once the order is final. Default 10,000.",
  }),
  requestTimeoutMs: DurationMs.optional().meta({ description: "Per-request timeout, ms. Default 10,000." }),
  maxWaitMs: DurationMs.optional().meta({
    description: 'Longest single wait of an "advance time" step against a real clock, ms. Default 500.',
  }),
  validateWithPrism: z.boolean().optional().meta({
    description:
      "Route model traffic through `prism proxy <document> <target> --errors`: spec/openapi.yaml, or with a provider profile the dialect's document (`spec --provider`).",
  }),
  prismCwd: z.string().optional().meta({
    description: "The project directory holding `node_modules/.bin/prism` and `spec/openapi.yaml`. Default: cwd.",
  }),
  sharedAccount: z.boolean().optional().meta({
    description:
      "The account is shared with something else that moves its balance: judge the balance by a lower bound only. Default false: after settling, the balance must be exact.",
  }),
  requireCoverage: z.boolean().optional().meta({
    description: "A check that ran but never met a class of case it is about fails the run (for CI).",
  }),
  saveRun: z.string().min(1).optional().meta({
    description:
      "Write the orders the run placed with its token (references, keys, payloads, ids, statuses; never the token) to this file, for --recheck later.",
  }),
  recheck: z.string().min(1).optional().meta({
    description:
      "Judge a saved run again instead of running the properties: replay every key, re-read every order (same target and token).",
  }),
  lateAuditMs: DurationMs.optional().meta({
    description:
      "How long after the newest order went final the late audit looks every order up again and replays every key; 0 turns it off. Default 5,000.",
  }),
  shrinkTimeMs: DurationMs.optional().meta({
    description: "Most wall ms spent shrinking one failure. Default 10,000.",
  }),
  profile: z
    .enum(STRICTNESS_LEVELS, { error: `must be one of ${STRICTNESS_LEVELS.join(", ")}` })
    .optional()
    .meta({
      description:
        "`strict` (default): everything our spec decides; `interface`: only what the interface document states.",
    }),
  providerFile: z.string().optional().meta({
    description:
      "A provider profile (YAML or JSON): where the target keeps every field, its statuses, errors, webhooks and domain.",
  }),
  mappingFile: z.string().optional().meta({
    description: "Deprecated: a JSON file of pointers, read as a provider profile. Use providerFile.",
  }),
  specFile: z.string().optional().meta({
    description: "The target's own OpenAPI document (YAML or JSON): response bodies are judged against it.",
  }),
});

export type ContractOptions = Readonly<z.output<typeof ContractOptionsSchema>> & {
  /** In-process only: extra simulator options, e.g. plugins. */
  readonly simulator?: SimulatorOptions;
  /** The provider profile every body is read through (read from `providerFile` by the CLI); default our spec. */
  readonly provider?: ProviderProfile;
  /** Called at the start of every run. */
  readonly onProgress?: (event: ProgressEvent) => void;
};

export interface ProgressEvent {
  readonly property: PropertyName;
  /** Runs started in this search of the property, held at `runs` while a failure is shrunk. */
  readonly run: number;
  readonly runs: number;
  readonly phase: "search" | "shrink-or-retry" | "replay";
}
