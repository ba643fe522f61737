/**
 * The admin API's bodies (`/_sim/…`) as zod schemas: request validation in the
 * simulator, the types, and `spec/admin.openapi.yaml`. Amounts are KES
 * numbers, like the public API; the simulator keeps integer cents inside.
 */
import { z } from "zod";
import { NextCursorSchema } from "./admin-pages.ts";
import { hasAtMostTwoDecimals } from "./money.ts";
import { StatusCodeSchema, TransactionStatusResponseSchema } from "./public-schemas.ts";
import { WebhookUrlSchema } from "./webhook-url.ts";
import { wellFormed } from "./well-formed.ts";

const CustomerIdSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_.-]+$/, "must be 1–64 letters, digits, '_', '.' or '-'")
  .meta({ id: "CustomerId", examples: ["acme"] });

/** A balance set by an operator: ≥ 0 KES with at most two decimals. */
const KesBalanceSchema = z
  .number()
  .min(0)
  .max(1_000_000_000)
  .refine(hasAtMostTwoDecimals, "must have at most 2 decimals")
  .meta({ description: "Balance in KES.", examples: [10_000] });

/** A static token of `minLength`–256 visible ASCII characters, with one message for every way it fails. */
export function staticTokenSchema(minLength: number) {
  const rule = `must be ${minLength}–256 visible ASCII characters`;
  return z
    .string({ error: rule })
    .min(minLength, rule)
    .max(256, rule)
    .regex(/^[\x21-\x7E]+$/, rule);
}

/** The one rule for every static token: bearer tokens, API keys (the admin token asks for more). */
export const TokenSchema = staticTokenSchema(8).meta({ description: "A static bearer token for the public API." });

const ShortcodeSchema = wellFormed(z.string().min(1).max(32)).meta({ description: "The customer's paybill or till." });

const WebhookSecretSchema = z
  .string()
  .regex(/^whsec_[A-Za-z0-9+/=]{32,}$/, "must be whsec_ followed by the base64 of 24–64 random bytes")
  .meta({ description: "A Standard Webhooks secret." });

const AdminWebhookInputSchema = z
  .object({
    url: WebhookUrlSchema,
    secrets: z.array(WebhookSecretSchema).min(1).max(5).optional().meta({
      description: "Signing secrets; generated (one `whsec_…`) when omitted.",
    }),
  })
  .meta({ id: "AdminWebhookInput" });

export const AdminCreateCustomerRequestSchema = z
  .object({
    id: CustomerIdSchema.optional().meta({ description: "Generated when omitted." }),
    name: wellFormed(z.string().min(1).max(100)).optional(),
    token: TokenSchema.optional().meta({ description: "Static bearer token; generated when omitted." }),
    apiKey: TokenSchema.optional().meta({ description: "Secret for POST /v1/auth/token; generated when omitted." }),
    balance: KesBalanceSchema.optional().meta({ description: "Default wallet balance in KES (default 10,000)." }),
    currency: wellFormed(z.string().length(3)).optional().meta({ description: "Wallet currency (default KES)." }),
    wallets: z
      .array(z.object({ shortcode: ShortcodeSchema, balance: KesBalanceSchema }))
      .max(20)
      .optional()
      .meta({ description: "Extra wallets keyed by the customer's shortcodes." }),
    webhook: AdminWebhookInputSchema.optional(),
  })
  .strict()
  .meta({ id: "AdminCreateCustomerRequest" });
export type AdminCreateCustomerRequest = z.infer<typeof AdminCreateCustomerRequestSchema>;

export const AdminUpdateCustomerRequestSchema = z
  .object({
    name: wellFormed(z.string().min(1).max(100)).optional(),
    tokens: z.array(TokenSchema).max(20).optional().meta({ description: "Replaces the static tokens." }),
    wallets: z
      .array(z.object({ shortcode: ShortcodeSchema.nullable(), balance: KesBalanceSchema }))
      .max(21)
      .optional()
      .meta({
        description: "Sets these wallets' balances (null = default wallet); unknown shortcodes add a wallet.",
      }),
    webhook: AdminWebhookInputSchema.nullable().optional().meta({ description: "null removes the webhook." }),
  })
  .strict()
  .meta({ id: "AdminUpdateCustomerRequest" });
export type AdminUpdateCustomerRequest = z.infer<typeof AdminUpdateCustomerRequestSchema>;

const AdminWalletSchema = z
  .object({
    shortcode: z.string().nullable(),
    balance: z.number(),
    currency: z.string(),
    default: z.boolean(),
  })
  .meta({ id: "AdminWallet" });

export const AdminCustomerSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    tokens: z.array(z.string()),
    apiKey: z.string(),
    wallets: z.array(AdminWalletSchema),
    webhook: z.object({ url: z.string(), secrets: z.array(z.string()), disabled: z.boolean() }).nullable(),
  })
  .meta({ id: "AdminCustomer" });
export type AdminCustomer = z.infer<typeof AdminCustomerSchema>;

export const AdminCustomerListSchema = z
  .object({ customers: z.array(AdminCustomerSchema), next_cursor: NextCursorSchema })
  .meta({ id: "AdminCustomerList" });

export const AdminOrderSchema = TransactionStatusResponseSchema.extend({
  customerId: z.string(),
  idempotencyKey: z.string().nullable(),
}).meta({ id: "AdminOrder" });
export type AdminOrder = z.infer<typeof AdminOrderSchema>;

export const AdminOrderListSchema = z
  .object({ orders: z.array(AdminOrderSchema), next_cursor: NextCursorSchema })
  .meta({ id: "AdminOrderList" });

export const AdminStatsSchema = z
  .object({
    orders: z.object({
      retained: z.number().int().min(0).meta({ description: "Orders kept in full." }),
      max: z.number().int().min(1).meta({ description: "The order cap (`--max-orders`)." }),
      evicted: z.number().int().min(0).meta({ description: "Orders evicted under the cap since start." }),
      evictedRecords: z
        .number()
        .int()
        .min(0)
        .meta({ description: "Evicted orders whose compact record (id, reference, status) is still kept." }),
    }),
    keyRetentionMs: z.number().int().min(1).meta({ description: "How long keys and references are kept." }),
    issuedTokens: z.number().int().min(0).meta({ description: "Tokens from POST /v1/auth/token held." }),
  })
  .meta({ id: "AdminStats" });
export type AdminStats = z.infer<typeof AdminStatsSchema>;

export const TRANSITION_ACTIONS = ["succeed", "fail", "timeout", "reverse"] as const;
export type TransitionAction = (typeof TRANSITION_ACTIONS)[number];

export const AdminTransitionRequestSchema = z
  .union([
    z.object({ action: z.enum(TRANSITION_ACTIONS) }).strict(),
    z.object({ status: StatusCodeSchema, message: wellFormed(z.string().min(1).max(200)).optional() }).strict(),
  ])
  .meta({
    id: "AdminTransitionRequest",
    description: "A named action (succeed → 20, fail → 2, timeout → 6, reverse → 8) or an explicit status.",
  });

export const AdminResetResponseSchema = z
  .object({ reset: z.string().meta({ description: '"all", or the id of the customer that was reset.' }) })
  .meta({ id: "AdminResetResponse" });

export const AdminClockSchema = z
  .object({
    mode: z.enum(["real", "virtual"]),
    now: z.number().int().meta({ description: "Simulator time, Unix milliseconds." }),
    iso: z.iso.datetime(),
  })
  .meta({ id: "AdminClock" });
export type AdminClock = z.infer<typeof AdminClockSchema>;

export const AdminClockAdvanceRequestSchema = z
  .object({
    ms: z
      .number()
      .int()
      .min(0)
      .max(366 * 24 * 3_600_000)
      .meta({ description: "Milliseconds to move the virtual clock forward." }),
  })
  .strict()
  .meta({ id: "AdminClockAdvanceRequest" });

export const JournalEntrySchema = z
  .object({
    id: z.number().int(),
    requestId: z.string(),
    at: z.number().int().meta({ description: "Simulator time when the request arrived, Unix ms." }),
    wallTime: z.iso.datetime().meta({ description: "Wall-clock time when the request arrived." }),
    method: z.string(),
    path: z.string(),
    status: z.number().int().meta({ description: "HTTP status written; 0 when the connection was dropped." }),
    customerId: z.string().nullable(),
    fired: z.array(z.string()).meta({ description: "Scenario rules that fired (`scenario/rule`)." }),
    durationMs: z.number(),
  })
  .meta({ id: "JournalEntry" });
export type JournalEntry = z.infer<typeof JournalEntrySchema>;

export const AdminJournalSchema = z
  .object({ entries: z.array(JournalEntrySchema), next_cursor: NextCursorSchema })
  .meta({ id: "AdminJournal" });
