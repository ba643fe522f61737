/**
 * A handler check's settings, normalised once: one table of defaults, the
 * command's flags parsed by one schema that fills them in, and the frozen
 * settings `runHandlerCheck` reads as they are. No other file of the handler
 * check falls back to a default.
 */
import { z } from "zod";
import { parseDuration } from "../contract/duration.ts";
import { parseForwardTarget } from "../webhooks/forward-target.ts";
import { isWebhookSecret } from "../webhooks/signing.ts";
import type { StateSource } from "./believed-state.ts";
import { type DeliveryDialect, createStandardDialect } from "./delivery-dialect.ts";

/** Every default of a handler check. */
export const HANDLER_CHECK_DEFAULTS = Object.freeze({
  /** Generated delivery sequences. */
  runs: 50,
  /** Per request to the handler and per read of the app's state. */
  timeoutMs: 10_000,
  /** Most orders in one sequence. */
  maxOrders: 3,
  /** Where the status code sits in the app's state document. */
  statusPointer: "/status",
});

export const DEFAULT_HANDLER_CHECK_RUNS = HANDLER_CHECK_DEFAULTS.runs;
export const DEFAULT_HANDLER_TIMEOUT_MS = HANDLER_CHECK_DEFAULTS.timeoutMs;
export const DEFAULT_MAX_ORDERS = HANDLER_CHECK_DEFAULTS.maxOrders;

const MAX_ORDERS_LIMIT = 10;

export const WHSEC_RULE = "must be whsec_ + base64 of 24–64 bytes";

const fromText = (value: unknown) => (typeof value === "string" && value.trim() !== "" ? Number(value) : value);

function integer(rule: string, min: number, max: number) {
  return z.preprocess(fromText, z.int({ error: rule }).min(min, rule).max(max, rule));
}

/** `localhost:3000/webhooks` → `http://localhost:3000/webhooks`; other schemes refused. */
const HttpUrl = z.string().transform((text, ctx) => {
  const parsed = parseForwardTarget(text);
  if (parsed.ok) return parsed.url;
  ctx.issues.push({ code: "custom", message: parsed.error, input: text });
  return z.NEVER;
});

const DurationMs = z.union([
  z.number().min(0),
  z.string().transform((text, ctx) => {
    const parsed = /^\d+$/.test(text) ? { ok: true as const, ms: Number(text) } : parseDuration(text);
    if (parsed.ok) return parsed.ms;
    ctx.issues.push({ code: "custom", message: parsed.error, input: text });
    return z.NEVER;
  }),
]);

const Pointer = z.string().regex(/^(\/.*)?$/, "must be a JSON pointer such as /status");

export const HandlerCheckOptionsSchema = z
  .object({
    handler: HttpUrl,
    // Standard Webhooks keys are whsec_ secrets; an HMAC key of a provider profile is whatever text it gave.
    secret: z.string().min(1, "must not be empty"),
    provider: z.string().min(1).optional(),
    state: z.string().includes("{reference}", { error: "must contain {reference}" }).optional(),
    stateCommand: z.string().min(1).optional(),
    stateStatus: Pointer.default(HANDLER_CHECK_DEFAULTS.statusPointer),
    effects: Pointer.optional(),
    reconcile: HttpUrl.optional(),
    simulatorPort: integer("must be an integer 0–65535", 0, 65_535).optional(),
    simulatorToken: z
      .string()
      .regex(/^[\x21-\x7e]{8,256}$/, "must be 8–256 visible ASCII characters")
      .optional(),
    runs: integer("must be a positive integer", 1, Number.MAX_SAFE_INTEGER).default(HANDLER_CHECK_DEFAULTS.runs),
    seed: z.preprocess(fromText, z.int({ error: "must be an integer" })).optional(),
    path: z
      .string()
      .regex(/^\d+(:\d+)*$/, "must be a path as a failure printed it, e.g. 3:0:1")
      .optional(),
    timeoutMs: DurationMs.default(HANDLER_CHECK_DEFAULTS.timeoutMs),
    maxOrders: integer(`must be an integer 1–${MAX_ORDERS_LIMIT}`, 1, MAX_ORDERS_LIMIT).default(
      HANDLER_CHECK_DEFAULTS.maxOrders,
    ),
  })
  .check((ctx) => {
    const { state, stateCommand, secret, provider } = ctx.value;
    if (provider === undefined && !isWebhookSecret(secret)) {
      ctx.issues.push({ code: "custom", path: ["secret"], message: WHSEC_RULE, input: secret });
    }
    if ((state === undefined) === (stateCommand === undefined)) {
      ctx.issues.push({
        code: "custom",
        path: ["state"],
        message: "say where the app's state is: --state URL (with {reference}) or --state-command CMD, one of them",
        input: state,
      });
    }
  });
export type HandlerCheckSettings = z.output<typeof HandlerCheckOptionsSchema>;

export function stateSourceOf(settings: HandlerCheckSettings): StateSource {
  if (settings.state !== undefined) return { kind: "url", template: settings.state };
  // The schema holds that exactly one of the two is given.
  return { kind: "command", command: String(settings.stateCommand) };
}

/** What a caller of `runHandlerCheck` gives; `handlerCheckRunSettings` fills in the rest. */
export interface HandlerCheckOptions {
  readonly handlerUrl: string;
  readonly secret: string;
  readonly state: StateSource;
  /** Pointer to the status code in the state document. */
  readonly statusPointer: string;
  /** Pointer to a count of side effects applied for the order, when the app keeps one. */
  readonly effectsPointer?: string | undefined;
  /** The handler's reconcile endpoint; with it, some final messages are withheld. */
  readonly reconcileUrl?: string | undefined;
  readonly runs: number;
  readonly seed?: number | undefined;
  readonly path?: string | undefined;
  readonly timeoutMs: number;
  readonly maxOrders: number;
  /** The simulator's port and demo token, for handlers that look orders up. */
  readonly simulatorPort?: number | undefined;
  readonly simulatorToken?: string | undefined;
  /** Every reference starts with it; distinct per run so a long-lived app never mixes two runs. */
  readonly referencePrefix: string;
  /** The delivery dialect; default our spec's (Standard Webhooks). */
  readonly dialect?: DeliveryDialect | undefined;
  /** Told where the simulator's lookup listens, once it does. */
  readonly onStart?: ((simulator: { readonly url: string; readonly token: string }) => void) | undefined;
}

export type HandlerCheckRunSettings = Readonly<HandlerCheckOptions & { readonly dialect: DeliveryDialect }>;

/**
 * @example
 * const settings = handlerCheckRunSettings(options);
 * settings.dialect.name; // "airtime-harness spec (Standard Webhooks)"
 */
export function handlerCheckRunSettings(options: HandlerCheckOptions): HandlerCheckRunSettings {
  return Object.freeze({ ...options, dialect: options.dialect ?? createStandardDialect() });
}
