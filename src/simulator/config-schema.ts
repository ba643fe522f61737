/**
 * The one schema of the simulator's configuration. The config file, the
 * environment and the command line each give a part of it; `serve` merges
 * them and this schema parses the result once. Each feature owns its part
 * (`webhooks:`, `scenarios:`, timing); unknown keys are errors, so a typo
 * never silently falls back to a default.
 */
import { z } from "zod";
import { staticTokenSchema, TokenSchema } from "../contract/admin-schemas.ts";
import { hasAtMostTwoDecimals } from "../contract/money.ts";
import { CORS_ORIGIN_PATTERN } from "../http/create-listener.ts";
import { DURATION_TEXT_PATTERN, parseDuration } from "../contract/duration.ts";
import { TimingInputSchema } from "../domain/timing.ts";
import { SHARE_TOLERANCE } from "../domain/lifecycle.ts";
import { ScenariosConfigSchema } from "../scenarios/options.ts";
import { WebhooksConfigSchema, WebhookTargetConfigSchema } from "../webhooks/config-schema.ts";

const NUMBER_TEXT = /^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** The environment and flags give text: a number written as text is read as that number. */
function numeric<T extends z.ZodType>(schema: T) {
  return z.preprocess(
    (value) => (typeof value === "string" && NUMBER_TEXT.test(value.trim()) ? Number(value) : value),
    schema,
  );
}

function numberRule(message: string) {
  return z.number({ error: message });
}

const KES_RULE = "must be an amount >= 0 with at most 2 decimals";
const Kes = numeric(numberRule(KES_RULE).min(0, KES_RULE).refine(hasAtMostTwoDecimals, KES_RULE));
const PORT_RULE = "must be an integer 0–65535";
/** The one rule for admin tokens, wherever they come from (flag, environment, config, `createSimulator`). */
const AdminTokenSchema = staticTokenSchema(16).meta({
  description: "Bearer token of the admin API, 16–256 visible ASCII characters (default: generated).",
});
const RATE_RULE = "must be a number from 0 to 1";

const Rate = numeric(numberRule(RATE_RULE).min(0, RATE_RULE).max(1, RATE_RULE));

/** One failed outcome of the mix: `{ status: 6, share: 0.05 }`, optionally with its own timing. */
const OutcomeSchema = z
  .strictObject({
    status: z
      .int({ error: "must be a status code" })
      .min(0, "must be a status code")
      .meta({ description: "A failed-class final of the simulator's table: 2 Failed, 6 Timeout, 8 Reversed …" }),
    share: Rate.meta({ description: "Share of all orders that end in this status, 0..1." }),
    timing: TimingInputSchema.optional().meta({
      description: "This outcome's own pending → final delay, where it differs from `timing`.",
    }),
  })
  .meta({ description: "One failed outcome of the mix." });

const OutcomesSchema = z
  .array(OutcomeSchema)
  .refine(
    (outcomes) => outcomes.reduce((sum, outcome) => sum + outcome.share, 0) <= 1 + SHARE_TOLERANCE,
    "the shares must add up to at most 1",
  )
  .refine(
    (outcomes) => new Set(outcomes.map((outcome) => outcome.status)).size === outcomes.length,
    "each status may be named once",
  )
  .meta({
    description:
      "The failed outcomes and each one's share of all orders (the rest succeed), e.g. " +
      "[{status: 2, share: 0.1}, {status: 6, share: 0.05}]; replaces failureRate. `compare --calibrate` writes it.",
  });

const DurationSchema = z.union([
  z.number().int().min(1).meta({ description: "Milliseconds." }),
  z
    .string()
    .transform((text, ctx) => {
      const parsed = parseDuration(text);
      if (parsed.ok) return parsed.ms;
      ctx.issues.push({ code: "custom", message: parsed.error, input: text });
      return z.NEVER;
    })
    .meta({ pattern: DURATION_TEXT_PATTERN.source }),
]);

const CustomerConfigSchema = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "must be 1–64 letters, digits, '_', '.' or '-'"),
    name: z.string().min(1).max(100).optional(),
    tokens: z.array(TokenSchema).optional(),
    token: TokenSchema.optional(),
    apiKey: TokenSchema.optional(),
    balance: Kes.optional().meta({ description: "Default wallet balance, KES (default 10,000)." }),
    currency: z.string().length(3).optional(),
    wallets: z.array(z.object({ shortcode: z.string().min(1).max(32), balance: Kes }).strict()).optional(),
    webhook: WebhookTargetConfigSchema.optional(),
  })
  .strict();

export const StatusDefinitionSchema = z
  .object({
    code: z.number().int().min(0),
    message: z.string().min(1),
    class: z.enum(["pending", "success", "failed"]),
  })
  .strict();

const DemoConfigSchema = z
  .object({
    token: TokenSchema.optional(),
    balance: Kes.optional(),
    apiKey: TokenSchema.optional(),
    webhook: WebhookTargetConfigSchema.optional(),
  })
  .strict();

/** pino's levels, lowest first; `silent` logs nothing. */
export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;

/** `serve`'s request log; the simulator itself does not read it. */
const LogConfigSchema = z
  .strictObject({
    format: z
      .enum(["pretty", "json"], { error: "must be pretty or json" })
      .optional()
      .meta({ description: "pretty: one readable line per request (default); json: JSON lines." }),
    level: z
      .enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(", ")}` })
      .optional()
      .meta({ description: "Lowest level logged (default info): 5xx are error, 4xx warn, the rest info." }),
    quiet: z.boolean().optional().meta({ description: "No request log at all (level silent)." }),
  })
  .meta({ description: "The request log of `airtime-harness serve`: one line per request." });

const LimitsSchema = z
  .object({
    minAmount: z.number().positive().optional(),
    maxAmount: z.number().positive().optional(),
    currencies: z.array(z.string().length(3)).min(1).optional(),
  })
  .strict()
  .refine(({ minAmount = 10, maxAmount = 10_000 }) => minAmount <= maxAmount, "minAmount must not exceed maxAmount");

/**
 * The settings `createSimulator()` and the config file share, each with its
 * one rule: `createSimulator` parses its options with this schema, and the
 * config file extends it with what only `serve` reads. A new setting is
 * added here once (see CONTRIBUTING).
 */
export const SimulatorSettingsSchema = z.object({
  clock: z.enum(["real", "virtual"], { error: "must be real or virtual" }).optional(),
  seed: numeric(z.int({ error: "must be an integer" })).optional(),
  timing: TimingInputSchema.optional(),
  failureRate: Rate.optional(),
  outcomes: OutcomesSchema.optional(),
  adminToken: AdminTokenSchema.optional(),
  admin: z
    .boolean({ error: "must be true or false" })
    .optional()
    .meta({ description: "false: no admin API; `/_sim/…` answers 404 (default true)." }),
  cors: z
    .array(z.string().regex(CORS_ORIGIN_PATTERN, "must be an origin such as http://localhost:3000, or *"))
    .optional()
    .meta({ description: "Origins a browser app may call the simulator from (`*`: any). Default: CORS off." }),
  tokenTtlSeconds: z.number().int().min(1).optional(),
  maxOrders: numeric(z.int({ error: "must be an integer" }).min(1, "must be at least 1"))
    .optional()
    .meta({ description: "Orders kept in full; beyond it the oldest final ones are evicted (default 300000)." }),
  store: z
    .string()
    .regex(/^(memory|rediss?:\/\/.+|redis\+cluster:\/\/.+)$/i, "must be memory, a redis:// or a redis+cluster:// URL")
    .optional()
    .meta({
      description:
        "Where state lives: memory (default, this process) or redis://HOST:PORT/DB, shared by every simulator on it " +
        "(redis+cluster://HOST:PORT,HOST:PORT on Redis Cluster).",
    }),
  // The levels of src/redis/durability.ts, which this folder may not import; the backend's types hold them equal.
  redisDurability: z
    .enum(["memory", "aof", "replicated"], { error: "must be one of memory, aof, replicated" })
    .optional()
    .meta({
      description:
        "On Redis, what an acknowledged write survives: memory (default; applied in memory), aof (the server's " +
        "append-only file, which it must have), replicated (a replica holds it, WAIT after each write; else 503).",
    }),
  redisJobShards: numeric(
    z.int({ error: "must be an integer" }).min(1, "must be at least 1").max(1024, "must be at most 1024"),
  )
    .optional()
    .meta({
      description:
        "On Redis, the shards the shared job queue is split into, {jobs:0} to {jobs:N-1} (default 16); every " +
        "instance on one Redis must use the same number, and one that does not is refused at start.",
    }),
  stateFile: z.string().min(1).optional().meta({
    description:
      "A JSON file keeping the whole state across restarts: loaded at start when it exists, written on shutdown. Relative to the working directory.",
  }),
  limits: LimitsSchema.optional(),
  journalLimit: numeric(z.int({ error: "must be an integer" }).min(1, "must be at least 1"))
    .optional()
    .meta({ description: "Requests the journal keeps, newest first (default 10000)." }),
});

/** What the config file adds to the settings: what `serve` alone reads, and the file's own spellings. */
export const SimulatorConfigSchema = SimulatorSettingsSchema.extend({
  $schema: z.string().optional().meta({ description: "Ignored; lets editors find this schema." }),
  port: numeric(numberRule(PORT_RULE).int(PORT_RULE).min(0, PORT_RULE).max(65_535, PORT_RULE))
    .optional()
    .meta({ description: "Port `serve` listens on (default 4010; 0 picks a free one)." }),
  host: z
    .string()
    .refine((host) => host.trim() !== "", "must not be empty")
    .optional()
    .meta({ description: "Interface `serve` binds (default 127.0.0.1)." }),
  log: LogConfigSchema.optional(),
  shutdownTimeout: DurationSchema.optional().meta({
    description:
      "How long `serve` lets requests and webhook attempts in flight finish after SIGTERM or SIGINT, e.g. 10s (default), or ms.",
  }),
  workers: numeric(z.int({ error: "must be an integer" }).min(1, "must be at least 1").max(64, "must be at most 64"))
    .optional()
    .meta({ description: "`serve`: processes on the one port (default 1); more than one needs a Redis store." }),
  idempotencyRetention: DurationSchema.optional().meta({ description: "e.g. 24h (default), 90m, or ms." }),
  statusProfile: z
    .union([z.array(StatusDefinitionSchema).min(1), z.string().min(1)])
    .optional()
    .meta({ description: "The status table: a list of {code, message, class}, or a YAML file holding one." }),
  provider: z.string().min(1).optional().meta({
    description:
      "A provider profile file (YAML or JSON): the public API and the webhooks speak that provider's dialect. Relative to this file.",
  }),
  demo: z.union([z.literal(false), DemoConfigSchema]).optional(),
  customers: z.array(CustomerConfigSchema).optional(),
  scenarios: ScenariosConfigSchema.optional(),
  webhooks: WebhooksConfigSchema.optional(),
})
  .strict()
  .superRefine((config, ctx) => {
    if (config.outcomes !== undefined && config.failureRate !== undefined) {
      ctx.addIssue({ code: "custom", path: ["outcomes"], message: "give outcomes or failureRate, not both" });
    }
    const ids = config.customers === undefined ? [] : config.customers.map((customer) => customer.id);
    const dup = ids.find((id, index) => ids.indexOf(id) !== index);
    if (dup !== undefined) {
      ctx.addIssue({ code: "custom", path: ["customers"], message: `the id ${JSON.stringify(dup)} is used twice` });
    }
  })
  .meta({
    title: "airtime-harness simulator config",
    description: "The config file of `airtime-harness serve --config FILE`, YAML or JSON.",
  });

export type SimulatorConfig = z.output<typeof SimulatorConfigSchema>;
/** The settings as `createSimulator` takes them (text or parsed values). */
export type SimulatorSettingsInput = z.input<typeof SimulatorSettingsSchema>;
/** The settings as the schema parsed them, before the simulator's defaults (`simulator-settings.ts`). */
export type ParsedSimulatorSettings = z.output<typeof SimulatorSettingsSchema>;
