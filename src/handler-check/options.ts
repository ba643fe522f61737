/**
 * The options of `airtime-harness handler-check`, as one schema: the flag
 * table gives a partial object of text, parsed here once into what
 * `runHandlerCheck` takes.
 */
import { z } from "zod";
import { parseDuration } from "../contract/duration.ts";
import { parseForwardTarget } from "../webhooks/forward-target.ts";
import { isWebhookSecret } from "../webhooks/signing.ts";
import { DEFAULT_HANDLER_CHECK_RUNS, DEFAULT_HANDLER_TIMEOUT_MS, DEFAULT_MAX_ORDERS } from "./check-handler.ts";
import type { StateSource } from "./believed-state.ts";

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
    stateStatus: Pointer.default("/status"),
    effects: Pointer.optional(),
    reconcile: HttpUrl.optional(),
    simulatorPort: integer("must be an integer 0–65535", 0, 65_535).optional(),
    simulatorToken: z
      .string()
      .regex(/^[\x21-\x7e]{8,256}$/, "must be 8–256 visible ASCII characters")
      .optional(),
    runs: integer("must be a positive integer", 1, Number.MAX_SAFE_INTEGER).default(DEFAULT_HANDLER_CHECK_RUNS),
    seed: z.preprocess(fromText, z.int({ error: "must be an integer" })).optional(),
    path: z
      .string()
      .regex(/^\d+(:\d+)*$/, "must be a path as a failure printed it, e.g. 3:0:1")
      .optional(),
    timeoutMs: DurationMs.default(DEFAULT_HANDLER_TIMEOUT_MS),
    maxOrders: integer(`must be an integer 1–${MAX_ORDERS_LIMIT}`, 1, MAX_ORDERS_LIMIT).default(DEFAULT_MAX_ORDERS),
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
  return settings.state === undefined
    ? { kind: "command", command: settings.stateCommand ?? "" }
    : { kind: "url", template: settings.state };
}
