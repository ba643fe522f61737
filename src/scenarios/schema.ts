/**
 * The scenario file format: one zod schema, the single source of the
 * TypeScript types, the load-time validation and the JSON Schema committed
 * as `spec/scenario.schema.json` (editor completion for scenario files).
 *
 * Checks that need the status table (is 99 a status? may 20 follow 31?) live
 * in `checkScenarioStatuses`, because a profile may replace the table.
 */
import { z } from "zod";
import { KENYAN_MOBILE_PATTERN, SERVICES } from "../contract/operators.ts";
import { TimingSchema as StructuredTimingSchema, TimingTextSchema } from "../domain/timing.ts";

// The scenario schema's cross-field rules (at least one effect, one outcome,
// not both), spelt as JSON Schema keywords. zod's refinements check them at
// load time but cannot be turned into JSON Schema; these go into the
// schemas' `.meta()`, so an editor flags the same files the loader rejects.

type JsonSchema = Record<string, unknown>;

/** The key is there and not `false`: how the loader counts an effect or a webhook fault as given. */
function given(key: string): JsonSchema {
  return { required: [key], properties: { [key]: { not: { const: false } } } };
}

function atLeastOneGiven(keys: readonly string[]): JsonSchema {
  return { anyOf: keys.map(given) };
}

function atMostOneGiven(keys: readonly string[]): JsonSchema {
  const pairs = keys.flatMap((first, index) => keys.slice(index + 1).map((second) => [first, second] as const));
  return { not: { anyOf: pairs.map(([first, second]) => ({ allOf: [given(first), given(second)] })) } };
}

/** Both objects are given with the same value at `field`, one of `values`. */
function notSameValue(keys: readonly [string, string], field: string, values: readonly string[]): JsonSchema {
  const at = (value: string) => ({ required: [field], properties: { [field]: { const: value } } });
  return {
    not: {
      anyOf: values.map((value) => ({
        required: [...keys],
        properties: { [keys[0]]: at(value), [keys[1]]: at(value) },
      })),
    },
  };
}

/** Scenario and rule names: safe in a header, a URL path and a journal line. */
const SCENARIO_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const NAME_HINT = "1–64 letters, digits, '.', '_' or '-', starting with a letter or digit";

const NameSchema = z.string().regex(SCENARIO_NAME_PATTERN, `must be ${NAME_HINT}`);

/** A JavaScript regular expression (no flags), checked to compile. */
const PatternSchema = z
  .string()
  .min(1)
  .max(500)
  .superRefine((source, context) => {
    try {
      new RegExp(source);
    } catch (error) {
      context.addIssue({
        code: "custom",
        message: `is not a valid regular expression: ${(error as Error).message}`,
      });
    }
  })
  .meta({ description: "A JavaScript regular expression, unanchored unless you add ^ and $." });

const ServiceNameSchema = z.enum(SERVICES);

/**
 * The simulator's one timing syntax (`500ms`, `1s..3s`, `lognormal:2s,0.5`,
 * or the structured `{kind, …}` form), parsed to a `Timing`.
 */
const TimingSchema = z
  .union([TimingTextSchema, StructuredTimingSchema], {
    error: 'must be a timing: "500ms", "2s", "1s..3s" (uniform), "lognormal:2s,0.5" (median, sigma) or {kind, …}',
  })
  .meta({ description: 'A delay: "500ms", "2s", "1s..3s" (uniform), "lognormal:2s,0.5" (median, sigma).' });

const AccountMatchSchema = z
  .union(
    [
      z.strictObject({
        exact: z
          .string()
          .regex(KENYAN_MOBILE_PATTERN, "must be a Kenyan mobile number")
          .meta({ description: "One number in any written form; compared after normalising to E.164." }),
      }),
      z.strictObject({
        prefix: z
          .string()
          .regex(/^\+?\d{1,12}$/, "must be digits, optionally after a '+'")
          .meta({ description: 'Compared with the E.164 and national forms, e.g. "+25473" or "073".' }),
      }),
      z.strictObject({
        regex: PatternSchema.meta({ description: "Tested against the E.164 and the national form." }),
      }),
    ],
    { error: "must be one of {exact: NUMBER}, {prefix: DIGITS}, {regex: PATTERN}" },
  )
  .meta({ description: "Recipient account: {exact}, {prefix} or {regex}, against E.164 and national forms." });

const AmountMatchSchema = z
  .strictObject({
    min: z.number().min(0).optional().meta({ description: "Smallest matching amount in KES, inclusive." }),
    max: z.number().min(0).optional().meta({ description: "Largest matching amount in KES, inclusive." }),
  })
  .refine((range) => range.min !== undefined || range.max !== undefined, "needs min, max or both")
  .refine((range) => range.min === undefined || range.max === undefined || range.min <= range.max, {
    message: "min must not be greater than max",
    path: ["max"],
  })
  .meta(atLeastOneGiven(["min", "max"]));

const HeaderMatchSchema = z
  .strictObject({
    name: z
      .string()
      .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, "must be an HTTP header name")
      .meta({ description: "Header name, case-insensitive." }),
    equals: z.string().optional().meta({ description: "The header's exact value." }),
    matches: PatternSchema.optional(),
  })
  .refine((header) => (header.equals === undefined) !== (header.matches === undefined), {
    message: "needs exactly one of equals or matches",
  })
  .meta({ oneOf: [{ required: ["equals"] }, { required: ["matches"] }] });

const MatchSchema = z
  .strictObject({
    account: AccountMatchSchema.optional(),
    service: z
      .union([ServiceNameSchema, z.array(ServiceNameSchema).min(1)], {
        error: `must be one of ${SERVICES.join(", ")} or a list of them`,
      })
      .optional(),
    amount: AmountMatchSchema.optional(),
    reference: PatternSchema.optional().meta({ description: "Regular expression tested against the reference." }),
    customer: z
      .union([z.string().min(1), z.array(z.string().min(1)).min(1)], { error: "must be a customer id or a list" })
      .optional(),
    header: HeaderMatchSchema.optional(),
    attempt: z
      .int()
      .min(1)
      .max(1000)
      .optional()
      .meta({ description: "Only the Nth matching request per idempotency key (or per reference without a key)." }),
    firstN: z
      .int()
      .min(1)
      .max(1000)
      .optional()
      .meta({ description: "Only the first N matching requests per idempotency key (or reference)." }),
    probability: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .meta({ description: "Chance of firing, drawn from the scenario's seeded generator." }),
  })
  .refine((match) => match.attempt === undefined || match.firstN === undefined, {
    message: "attempt and firstN cannot be combined",
    path: ["firstN"],
  })
  .meta({
    description: "Every condition given must hold; an empty match matches every order.",
    not: { required: ["attempt", "firstN"] },
  });

const CommitPointSchema = z
  .enum(["before_commit", "after_commit"], {
    error: (issue) =>
      issue.input === undefined
        ? "is required: before_commit (nothing is created) or after_commit (the order exists)"
        : "must be before_commit or after_commit",
  })
  .meta({ description: "before_commit: no order is created. after_commit: the order exists, the answer is lost." });

const StatusSchema = z.int().min(0).meta({ description: "A status code of the status table (20 Success, 2 Failed…)." });

/** Every order starts at 0 and a status profile must keep it pending: an outcome of 0 is a stuck order. */
const OutcomeStatusSchema = z
  .int()
  .min(1, "0 is where every order starts; use stuckPending: true instead")
  .meta({ description: "A final status of the status table (20 Success, 2 Failed…)." });

const WebhookEffectSchema = z
  .strictObject({
    delay: TimingSchema.optional().meta({ description: "Extra delay before the first attempt of each webhook." }),
    duplicate: z.int().min(1).max(10).optional().meta({
      description: "Duplicates of each webhook: extra copies with the same webhook-id (3 → 4 deliveries in all).",
    }),
    outOfOrder: z.boolean().optional().meta({ description: "After the final webhook, send a stale earlier status." }),
    badSignature: z.boolean().optional().meta({ description: "Sign with a wrong secret." }),
    drop: z.boolean().optional().meta({ description: "Never send the webhooks." }),
    beforeResponse: z
      .boolean()
      .optional()
      .meta({ description: "Deliver the webhook before the HTTP response is written." }),
  })
  .refine((webhook) => Object.values(webhook).some((value) => value !== undefined && value !== false), {
    message: "needs at least one of delay, duplicate, outOfOrder, badSignature, drop, beforeResponse",
  })
  .meta(atLeastOneGiven(["delay", "duplicate", "outOfOrder", "badSignature", "drop", "beforeResponse"]));

const EFFECT_KEYS = [
  "latency",
  "httpError",
  "dropResponse",
  "outcome",
  "path",
  "stuckPending",
  "reverseAfter",
  "insufficientBalance",
  "webhook",
] as const;

const EffectsSchema = z
  .strictObject({
    latency: TimingSchema.optional().meta({ description: "Delay before the response is written." }),
    httpError: z
      .strictObject({
        status: z.literal([429, 500, 502, 503], { error: "must be 429, 500, 502 or 503" }),
        retryAfter: z
          .int()
          .min(0)
          .max(86_400)
          .optional()
          .meta({ description: "Retry-After seconds (429 and 503 only)." }),
        when: CommitPointSchema,
      })
      .refine((error) => error.retryAfter === undefined || error.status === 429 || error.status === 503, {
        message: "Retry-After is only sent with 429 or 503",
        path: ["retryAfter"],
      })
      .meta({ anyOf: [{ properties: { status: { enum: [429, 503] } } }, { not: { required: ["retryAfter"] } }] })
      .optional(),
    dropResponse: z
      .strictObject({ when: CommitPointSchema })
      .optional()
      .meta({ description: "Close the connection without an answer." }),
    outcome: z
      .strictObject({
        status: OutcomeStatusSchema,
        message: z.string().min(1).max(200).optional(),
        after: TimingSchema.optional().meta({
          description: "Delay from placement; the simulator's default if absent.",
        }),
      })
      .optional(),
    path: z
      .array(
        z.strictObject({
          status: StatusSchema,
          message: z.string().min(1).max(200).optional(),
          after: TimingSchema.meta({ description: "Delay from the previous step." }),
        }),
      )
      .min(1)
      .max(20)
      .optional()
      .meta({ description: "Statuses after the initial 0 (Pending), e.g. 3 → 31 → 20." }),
    stuckPending: z.boolean().optional().meta({ description: "The order stays pending until forced." }),
    reverseAfter: TimingSchema.optional().meta({ description: "Succeed, then reverse (status 8) after this delay." }),
    insufficientBalance: z.boolean().optional().meta({ description: "Answer 402 insufficient balance." }),
    webhook: WebhookEffectSchema.optional(),
  })
  .superRefine((effects, context) => {
    const given = EFFECT_KEYS.filter((key) => effects[key] !== undefined && effects[key] !== false);
    if (given.length === 0) {
      context.addIssue({ code: "custom", message: `needs at least one effect: ${EFFECT_KEYS.join(", ")}` });
    }
    if (effects.httpError !== undefined && effects.dropResponse?.when === effects.httpError.when) {
      context.addIssue({
        code: "custom",
        path: ["dropResponse", "when"],
        message: `conflicts with httpError.when: a response can fail only one way at ${effects.httpError.when}`,
      });
    }
    const outcomes = (["outcome", "path", "stuckPending"] as const).filter(
      (key) => effects[key] !== undefined && effects[key] !== false,
    );
    if (outcomes.length > 1) {
      context.addIssue({
        code: "custom",
        path: [outcomes[1] as string],
        message: `cannot be combined with ${outcomes[0]}: an order has one outcome`,
      });
    }
    if (effects.reverseAfter !== undefined && effects.stuckPending === true) {
      context.addIssue({
        code: "custom",
        path: ["reverseAfter"],
        message: "cannot be combined with stuckPending: only a successful order can be reversed",
      });
    }
  })
  .meta({
    allOf: [
      atLeastOneGiven(EFFECT_KEYS),
      notSameValue(["httpError", "dropResponse"], "when", ["before_commit", "after_commit"]),
      atMostOneGiven(["outcome", "path", "stuckPending"]),
      atMostOneGiven(["reverseAfter", "stuckPending"]),
    ],
  });

const RuleSchema = z.strictObject({
  name: NameSchema,
  description: z.string().max(2000).optional(),
  match: MatchSchema.optional(),
  effects: EffectsSchema,
});

/**
 * One scenario file.
 *
 * @example
 * ScenarioFileSchema.parse({
 *   name: "flaky-gateway",
 *   description: "503 twice, then success",
 *   rules: [{ name: "503-twice", match: { firstN: 2 }, effects: { httpError: { status: 503, when: "before_commit" } } }],
 * });
 */
export const ScenarioFileSchema = z
  .strictObject({
    $schema: z.string().optional().meta({ description: "Ignored; lets editors find this schema." }),
    name: NameSchema.meta({ description: "How the scenario is activated (X-Sim-Scenario, --scenario, admin API)." }),
    description: z.string().min(1).max(2000),
    seed: z
      .int()
      .min(0)
      .max(2 ** 32 - 1)
      .optional()
      .meta({ description: "Seed of the scenario's generator (probabilities, sampled delays)." }),
    rules: z.array(RuleSchema).min(1).max(200).meta({ description: "Evaluated top to bottom." }),
  })
  .superRefine((scenario, context) => {
    const seen = new Map<string, number>();
    scenario.rules.forEach((rule, index) => {
      const first = seen.get(rule.name);
      if (first !== undefined) {
        context.addIssue({
          code: "custom",
          path: ["rules", index, "name"],
          message: `duplicate rule name '${rule.name}' (also rules[${first}])`,
        });
      } else {
        seen.set(rule.name, index);
      }
    });
  })
  .meta({
    id: "Scenario",
    title: "airtime-harness scenario",
    description: "Rules that make the simulator misbehave on purpose for matching send-airtime requests.",
  });

export type ScenarioDefinition = z.infer<typeof ScenarioFileSchema>;
export type RuleMatch = z.infer<typeof MatchSchema>;
export type RuleEffects = z.infer<typeof EffectsSchema>;
export type AccountMatch = z.infer<typeof AccountMatchSchema>;
/** A scenario as written (timings as text), before parsing. */
export type ScenarioFileInput = z.input<typeof ScenarioFileSchema>;
export type RuleEffectsInput = z.input<typeof EffectsSchema>;
export type RuleMatchInput = z.input<typeof MatchSchema>;
