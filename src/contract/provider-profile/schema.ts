/**
 * The provider profile file (format 1): every dimension the interface leaves
 * open — body shapes, money, the status table, HTTP statuses, error codes,
 * webhooks, the accepted domain, the rate limit — described as data. This
 * zod schema is the source of truth: the types, the loader's validation and
 * `spec/provider-profile.schema.json` all come from it. Every section is
 * optional; a section left out means our spec's behaviour (see
 * compile.ts), and under `--profile interface` "not judged" wherever
 * the interface is silent.
 */
import { z } from "zod";

/** An RFC 6901 JSON pointer: "" (the whole body) or `/segment/segment` with `~0` and `~1` escapes. */
const JsonPointerSchema = z
  .string()
  .regex(/^(\/([^~/]|~[01])*)*$/, "must be a JSON pointer such as /data/transactionId")
  .meta({ description: "An RFC 6901 JSON pointer, e.g. /data/transactionId", examples: ["/data/transactionId"] });

/** What the simulator writes at a pointer it has no order field for. */
const ExtraFieldSchema = z.union([
  z.strictObject({ uuid: z.literal(true) }),
  z.strictObject({ constant: z.union([z.string(), z.number(), z.boolean(), z.null()]) }),
  z.strictObject({ orderCreatedAt: z.literal(true) }),
]);

const ExtraFieldsSchema = z
  .record(JsonPointerSchema, ExtraFieldSchema)
  .meta({ description: "Fields the provider adds that carry no order value, by pointer" });

const ContainersSchema = z.record(JsonPointerSchema, z.enum(["array", "object"])).meta({
  description:
    "The kind of container the body holds at a pointer, where the pointers leave it open: by default a container holding an index segment (/balances/0/available) is an array",
});

/**
 * Our spec's members a dialect's body may keep, by body: a provider's body
 * holds only what its profile states, so each is written only where the
 * profile's `passthrough` names its pointer.
 */
export const PASSTHROUGH_FIELDS = {
  lookup: ["message", "service", "account", "currency", "shortcode", "createdAt", "updatedAt", "history"],
  webhook: ["message", "final", "service", "account", "balance", "currency", "shortcode", "timestamp"],
  balance: ["status", "currency", "shortcode", "wallets"],
  error: ["type", "title", "status", "instance", "errors"],
} as const satisfies Record<string, readonly string[]>;

function passthroughSchema(names: readonly [string, ...string[]]) {
  return z.partialRecord(z.enum(names), JsonPointerSchema).meta({
    description:
      "Our spec's members this body keeps, each at its pointer; a member not named is not written (a kept history is written in the profile's statuses)",
  });
}

const OrderBodySchema = z.strictObject({
  id: JsonPointerSchema.optional(),
  reference: JsonPointerSchema.optional(),
  status: JsonPointerSchema.optional().meta({ description: "§2.3: always a number in this body" }),
  message: JsonPointerSchema.optional(),
  extra: ExtraFieldsSchema.optional(),
  containers: ContainersSchema.optional(),
});

const RecordBodySchema = z.strictObject({
  id: JsonPointerSchema.optional(),
  reference: JsonPointerSchema.optional(),
  status: JsonPointerSchema.optional(),
  amount: JsonPointerSchema.optional(),
  extra: ExtraFieldsSchema.optional(),
  containers: ContainersSchema.optional(),
});

const LookupBodySchema = RecordBodySchema.extend({
  passthrough: passthroughSchema(PASSTHROUGH_FIELDS.lookup).optional(),
});
const WebhookBodySchema = RecordBodySchema.extend({
  passthrough: passthroughSchema(PASSTHROUGH_FIELDS.webhook).optional(),
});

const BodiesSchema = z.strictObject({
  order: OrderBodySchema.optional().meta({ description: "The send-airtime answer (HTTP 200)" }),
  lookup: LookupBodySchema.optional().meta({ description: "GET /v1/airtime/{reference}" }),
  webhook: WebhookBodySchema.optional().meta({ description: "The webhook body" }),
  balance: z
    .strictObject({
      amount: JsonPointerSchema.optional(),
      extra: ExtraFieldsSchema.optional(),
      containers: ContainersSchema.optional(),
      passthrough: passthroughSchema(PASSTHROUGH_FIELDS.balance).optional(),
    })
    .optional(),
  error: z
    .strictObject({
      code: JsonPointerSchema.optional(),
      message: JsonPointerSchema.optional(),
      extra: ExtraFieldsSchema.optional(),
      containers: ContainersSchema.optional(),
      passthrough: passthroughSchema(PASSTHROUGH_FIELDS.error).optional(),
    })
    .optional()
    .meta({ description: "Any error body (4xx)" }),
});

export const PROFILE_STATUS_CLASSES = ["pending", "success", "failed", "reversed"] as const;
export type ProfileStatusClass = (typeof PROFILE_STATUS_CLASSES)[number];
const StatusClassSchema = z.enum(PROFILE_STATUS_CLASSES);

const StatusEntrySchema = z.strictObject({
  code: z.number().int().min(0),
  word: z.string().min(1).optional(),
  class: StatusClassSchema,
  message: z.string().min(1).optional(),
});

/** One end of a legal move: a class, a status code, or a status word of the table. */
const TransitionEndSchema = z.union([StatusClassSchema, z.number().int().min(0), z.string().min(1)]);
export type TransitionEnd = z.output<typeof TransitionEndSchema>;

const StatusesSchema = z
  .strictObject({
    values: z
      .enum(["code", "word"])
      .optional()
      .meta({ description: "How the lookup and the webhook write a status: its number or its word" }),
    table: z.array(StatusEntrySchema).min(1).optional(),
    transitions: z
      .array(z.tuple([TransitionEndSchema, TransitionEndSchema]))
      .optional()
      .meta({ description: "Legal moves, by class, code or word; a status may always stay as it is" }),
  })
  .superRefine((statuses, context) => {
    const table = statuses.table ?? [];
    if (statuses.table !== undefined && !table.some((entry) => entry.code === 0 && entry.class === "pending")) {
      context.addIssue({ code: "custom", path: ["table"], message: "must define 0 as a pending status (§3)" });
    }
    if (statuses.values === "word") {
      table.forEach((entry, index) => {
        if (entry.word === undefined) {
          context.addIssue({
            code: "custom",
            path: ["table", index, "word"],
            message: "required when statuses.values is word",
          });
        }
      });
    }
    const words = new Set(table.flatMap((entry) => (entry.word === undefined ? [] : [entry.word])));
    statuses.transitions?.forEach((pair, index) => {
      pair.forEach((end, side) => {
        const known =
          typeof end === "number" ||
          (PROFILE_STATUS_CLASSES as readonly string[]).includes(end) ||
          (statuses.table !== undefined && words.has(end));
        if (!known) {
          context.addIssue({
            code: "custom",
            path: ["transitions", index, side],
            message: `expected one of ${PROFILE_STATUS_CLASSES.join("|")}, a status code or a word of the table`,
          });
        }
      });
    });
  });

const HttpStatusSchema = z.number().int().min(100).max(599);
const HttpSchema = z
  .strictObject({
    invalidInput: HttpStatusSchema.optional(),
    unauthorized: HttpStatusSchema.optional(),
    insufficientBalance: HttpStatusSchema.optional().meta({
      description: "200 means: a failed order without an id (§7)",
    }),
    notFound: HttpStatusSchema.optional(),
    wrongMethod: HttpStatusSchema.optional(),
  })
  .meta({ description: "§7 — HTTP statuses where known; one left out is not judged" });

const ErrorCodesSchema = z.strictObject({
  invalidInput: z.string().min(1).optional(),
  unauthorized: z.string().min(1).optional(),
  insufficientBalance: z.string().min(1).optional(),
  notFound: z.string().min(1).optional(),
});

const HeaderNameSchema = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, "must be an HTTP header name");

const SigningSchema = z.discriminatedUnion("scheme", [
  z.strictObject({ scheme: z.literal("standard-webhooks") }),
  z.strictObject({ scheme: z.literal("none") }),
  z
    .strictObject({
      scheme: z.literal("hmac"),
      header: HeaderNameSchema,
      hash: z.enum(["sha256", "sha512"]).optional().meta({ description: "Default sha256" }),
      encoding: z.enum(["hex", "base64"]).optional().meta({ description: "Default hex" }),
      prefix: z.string().optional().meta({ description: 'Written before the digest, e.g. "sha256="' }),
      signed: z
        .enum(["body", "timestamp.body"])
        .optional()
        .meta({ description: 'What is signed: the body, or "<timestamp>.<body>"; default body' }),
      timestampHeader: HeaderNameSchema.optional(),
    })
    .refine((signing) => signing.signed !== "timestamp.body" || signing.timestampHeader !== undefined, {
      path: ["timestampHeader"],
      message: "required when signed is timestamp.body",
    }),
]);
export type ProfileSigning = z.output<typeof SigningSchema>;

const WebhooksSchema = z.strictObject({
  event: z
    .strictObject({ pointer: JsonPointerSchema, values: z.array(z.string().min(1)).min(1) })
    .optional()
    .meta({ description: "Which deliveries are order-status events: the value at pointer is one of values" }),
  deliveryId: z
    .union([z.strictObject({ header: HeaderNameSchema }), z.strictObject({ pointer: JsonPointerSchema })])
    .optional()
    .meta({ description: "Tells a retry of a delivery from a new event" }),
  signing: SigningSchema.optional().meta({ description: "The secret is given on the command line, never here" }),
});

export const ACCOUNT_FORMATS = ["local", "international", "e164", "short"] as const;
export type AccountFormat = (typeof ACCOUNT_FORMATS)[number];

const DomainSchema = z.strictObject({
  amount: z
    .strictObject({
      min: z.number().positive().optional(),
      max: z.number().positive().optional(),
      decimals: z.number().int().min(0).max(2).optional(),
    })
    .refine((amount) => amount.min === undefined || amount.max === undefined || amount.min <= amount.max, {
      path: ["max"],
      message: "must not be below min",
    })
    .optional(),
  reference: z
    .strictObject({
      pattern: z.string().refine(isRegExp, "must be a regular expression").optional(),
      maxLength: z.number().int().min(1).optional(),
    })
    .optional(),
  accounts: z.array(z.enum(ACCOUNT_FORMATS)).min(1).optional().meta({
    description:
      "Accepted account forms: local 07XXXXXXXX, international 2547XXXXXXXX, e164 +2547XXXXXXXX, short 7XXXXXXXX",
  }),
  services: z
    .array(z.enum(["safaricom", "airtel", "telkom", "jtl", "equitel"]))
    .min(1)
    .optional(),
  currency: z.string().min(1).optional(),
});

export const ProviderProfileSchema = z
  .strictObject({
    profile: z.literal(1).meta({ description: "Format version" }),
    name: z.string().min(1).optional().meta({ description: "Free text, shown in reports" }),
    bodies: BodiesSchema.optional(),
    money: z.enum(["number", "string"]).optional().meta({ description: 'Amounts and balances: 10 or "10.00"' }),
    statuses: StatusesSchema.optional(),
    http: HttpSchema.optional(),
    errorCodes: ErrorCodesSchema.optional().meta({
      description: "The provider's error codes; payload mismatch is fixed by §4.4/§7 (idempotency_payload_mismatch)",
    }),
    webhooks: WebhooksSchema.optional(),
    domain: DomainSchema.optional(),
    rateLimit: z.strictObject({ requestsPerSecond: z.number().positive() }).optional(),
  })
  .meta({
    title: "airtime-harness provider profile",
    description: "Every dimension the airtime interface leaves open, for one provider",
  });

export type ProviderProfile = z.output<typeof ProviderProfileSchema>;

/** Whether `text` compiles as a Unicode regular expression. */
export function isRegExp(text: string): boolean {
  try {
    new RegExp(text, "u");
    return true;
  } catch {
    return false;
  }
}
