/**
 * The public API's bodies as zod schemas: the single source of truth for the
 * TypeScript types, runtime validation, the OpenAPI document in `spec/` and
 * the test data generators.
 */
import { z } from "zod";
import { ERROR_CODES } from "./error-codes.ts";
import { hasAtMostTwoDecimals } from "./money.ts";
import { ACCOUNT_PATTERN, SERVICES } from "./operators.ts";
import { DEFAULT_STATUS_DEFINITIONS, REVERSED_STATUS, SUCCESS_STATUS } from "./status-codes.ts";
import { wellFormed } from "./well-formed.ts";

export const ServiceSchema = z.enum(SERVICES).meta({
  id: "Service",
  description: "Airtime service (operator). When omitted, detected from the account prefix.",
});

/** 1–255 visible ASCII characters (interface §4.4; a UUID v4 is recommended). */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7E]{1,255}$/;
export const IdempotencyKeySchema = z
  .string()
  .min(1)
  .max(255)
  .regex(IDEMPOTENCY_KEY_PATTERN, "must be 1–255 visible ASCII characters")
  .meta({ id: "IdempotencyKey", examples: ["3f0c2a7e-9f1b-4c55-8d55-1a1f3f5d2b10"] });

export const REFERENCE_MAX_LENGTH = 100;
/** No control characters, so every reference round-trips through a URL path. */
export const REFERENCE_PATTERN = /^[^\p{Cc}]+$/u;
export const ReferenceSchema = wellFormed(
  z.string().min(1).max(REFERENCE_MAX_LENGTH).regex(REFERENCE_PATTERN, "must not contain control characters"),
).meta({ id: "Reference", examples: ["ORDER-2026-0001"] });

/** A recipient as the simulator reports it: always E.164. */
export const E164_ACCOUNT_PATTERN = /^\+254[17]\d{8}$/;

const AccountSchema = z
  .string()
  .regex(ACCOUNT_PATTERN, "must be a Kenyan mobile number: +2547XXXXXXXX, 2547XXXXXXXX, 07XXXXXXXX or 7XXXXXXXX")
  .meta({ id: "Account", examples: ["0712345678"] });

export interface OrderLimits {
  /** Smallest amount per order, in KES. */
  readonly minAmount: number;
  /** Largest amount per order, in KES. */
  readonly maxAmount: number;
  readonly currencies: readonly [string, ...string[]];
}

export const ShortcodeSchema = wellFormed(z.string().min(1).max(32)).meta({
  id: "Shortcode",
  description:
    "The caller's own paybill or till number, selecting which of its wallets funds the order. Omitted: the default wallet. Never selects the operator.",
  examples: ["600100"],
});

export const DEFAULT_ORDER_LIMITS: OrderLimits = {
  minAmount: 10,
  maxAmount: 10_000,
  currencies: ["KES"],
};

/**
 * The send-airtime body (interface table 2.1). `network` is accepted as an
 * alias of `service` because the interface's retry-safety sample uses it;
 * `phone` is the customer's own phone, never the recipient.
 */
export function createSendAirtimeRequestSchema(limits: OrderLimits = DEFAULT_ORDER_LIMITS) {
  return z
    .object({
      service: ServiceSchema.optional(),
      network: ServiceSchema.optional().meta({ description: "Alias of `service`." }),
      account: AccountSchema,
      amount: z
        .number()
        .min(limits.minAmount)
        .max(limits.maxAmount)
        .refine(hasAtMostTwoDecimals, "must have at most 2 decimals")
        .meta({
          description: `Amount in KES, ${limits.minAmount}–${limits.maxAmount}, at most 2 decimals.`,
          examples: [100],
        }),
      currency: z.enum(limits.currencies).meta({ examples: ["KES"] }),
      reference: ReferenceSchema,
      idempotencyKey: IdempotencyKeySchema.optional().meta({
        description: "Body alternative to the Idempotency-Key header. When both are sent they must be equal.",
      }),
      name: wellFormed(z.string().max(100)).optional().meta({ description: "Customer first name." }),
      phone: wellFormed(z.string().max(32))
        .optional()
        .meta({ description: "The customer's own phone number, not the recipient." }),
      shortcode: ShortcodeSchema.optional(),
    })
    .meta({ id: "SendAirtimeRequest", title: "Send airtime request" });
}

export const SendAirtimeRequestSchema = createSendAirtimeRequestSchema();
export type SendAirtimeRequest = z.infer<typeof SendAirtimeRequestSchema>;

/** The default status table as a description list, so the document always shows the table the simulator uses. */
function describeStatusTable(): string {
  const lines = DEFAULT_STATUS_DEFINITIONS.map((d) => `- \`${d.code}\` ${d.message} (${d.class})`);
  return [
    "Transaction status code. The interface fixes only `0` Pending; the other codes follow the provider this API resembles.",
    "Pending codes may move to any code; a final code never changes, except " +
      `\`${SUCCESS_STATUS}\` Success → \`${REVERSED_STATUS}\` Reversed. Failed-class codes refund the funding wallet.`,
    "",
    ...lines,
  ].join("\n");
}

export const StatusCodeSchema = z
  .number()
  .int()
  .min(0)
  .meta({
    id: "StatusCode",
    description: describeStatusTable(),
    examples: [0],
  });

export const SendAirtimeResponseSchema = z
  .object({
    id: z.string().min(1).meta({ description: "Transaction ID." }),
    reference: z.string(),
    status: StatusCodeSchema,
    message: z.string(),
  })
  .meta({ id: "SendAirtimeResponse", title: "Send airtime response" });
export type SendAirtimeResponse = z.infer<typeof SendAirtimeResponseSchema>;

/** A failed order: the order envelope without `id` (interface §7). */
export const FailedOrderResponseSchema = z
  .object({
    reference: z.string(),
    status: StatusCodeSchema,
    message: z.string(),
    code: z.literal("insufficient_balance"),
  })
  .meta({ id: "FailedOrderResponse", title: "Failed order (no id)" });
export type FailedOrderResponse = z.infer<typeof FailedOrderResponseSchema>;

export const StatusHistoryEntrySchema = z
  .object({ status: StatusCodeSchema, message: z.string(), at: z.iso.datetime() })
  .meta({ id: "StatusHistoryEntry" });

export const TransactionStatusResponseSchema = z
  .object({
    id: z.string().min(1),
    reference: z.string(),
    status: StatusCodeSchema,
    message: z.string(),
    service: ServiceSchema,
    account: z
      .string()
      .regex(E164_ACCOUNT_PATTERN)
      .meta({ description: "Recipient in E.164 form.", examples: ["+254712345678"] }),
    amount: z.number(),
    currency: z.string(),
    shortcode: z
      .string()
      .nullable()
      .meta({ description: "The funding wallet's shortcode; null for the default wallet." }),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    history: z.array(StatusHistoryEntrySchema),
  })
  .meta({ id: "TransactionStatusResponse", title: "Transaction status" });
export type TransactionStatusResponse = z.infer<typeof TransactionStatusResponseSchema>;

export const WalletBalanceSchema = z
  .object({
    shortcode: z.string().nullable(),
    amount: z.number(),
    currency: z.string(),
    default: z.boolean(),
  })
  .meta({ id: "WalletBalance" });

export const BalanceResponseSchema = z
  .object({
    status: z.literal(20),
    amount: z.number().meta({ description: "Available balance of the selected wallet, in KES." }),
    currency: z.string(),
    shortcode: z.string().nullable(),
    wallets: z.array(WalletBalanceSchema),
  })
  .meta({ id: "BalanceResponse", title: "Balance" });
export type BalanceResponse = z.infer<typeof BalanceResponseSchema>;

export const ValidationIssueSchema = z
  .object({
    pointer: z.string().meta({ description: "JSON Pointer to the offending field, e.g. #/amount." }),
    detail: z.string(),
  })
  .meta({ id: "ValidationIssue" });

/** RFC 9457 problem details with a flat, stable `code`. */
export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int().min(400).max(599),
    detail: z.string().optional(),
    instance: z.string().optional(),
    code: z.enum(ERROR_CODES as [string, ...string[]]),
    errors: z.array(ValidationIssueSchema).optional(),
  })
  .meta({ id: "Problem", title: "Problem details (RFC 9457)" });
export type Problem = z.infer<typeof ProblemSchema>;

export const TokenResponseSchema = z
  .object({
    access_token: z.string().min(1),
    issued_at: z.number().int().meta({ description: "Issue time, Unix milliseconds." }),
    expires_in: z.number().int().positive().meta({ description: "Lifetime in seconds." }),
  })
  .meta({ id: "TokenResponse" });
export type TokenResponse = z.infer<typeof TokenResponseSchema>;
