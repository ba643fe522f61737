/**
 * Strict views of the contract's response schemas: the same schemas (never
 * forks), with unknown fields rejected at every level — our spec decides
 * every field of these bodies, so an extra field (an `id` on a failed order,
 * a stray debug field) is a defect, not noise. Views are derived once here.
 */
import { z } from "zod";
import {
  BalanceResponseSchema,
  FailedOrderResponseSchema,
  ProblemSchema,
  SendAirtimeResponseSchema,
  StatusHistoryEntrySchema,
  TransactionStatusResponseSchema,
  ValidationIssueSchema,
  WalletBalanceSchema,
} from "../contract/public-schemas.ts";
import { WebhookPayloadSchema } from "../contract/webhook-schemas.ts";

export const StrictSendAirtimeResponse = SendAirtimeResponseSchema.strict();
export const StrictFailedOrderResponse = FailedOrderResponseSchema.strict();
export const StrictTransactionStatusResponse = TransactionStatusResponseSchema.extend({
  history: z.array(StatusHistoryEntrySchema.strict()),
}).strict();
export const StrictBalanceResponse = BalanceResponseSchema.extend({
  wallets: z.array(WalletBalanceSchema.strict()),
}).strict();
export const StrictProblem = ProblemSchema.extend({
  errors: z.array(ValidationIssueSchema.strict()).optional(),
}).strict();
export const StrictWebhookPayload = WebhookPayloadSchema.strict();
