/**
 * Example bodies for the public document. Every one is checked against its
 * zod schema while the document is built, and again by the schema tests.
 */
import { signWebhook } from "../signing.ts";
import type { SendAirtimeRequest, SendAirtimeResponse, TransactionStatusResponse } from "../public-schemas.ts";
import type { WebhookPayload } from "../webhook-schemas.ts";
import type { NamedExamples } from "./route.ts";

const ORDER_ID = "ord_7m2k9q4x1c8v3b6n5z0w";
const REFERENCE = "ORDER-2026-0001";
const PLACED_AT = "2026-03-02T09:15:00.000Z";
const FINAL_AT = "2026-03-02T09:15:02.000Z";
const KEY = "3f0c2a7e-9f1b-4c55-8d55-1a1f3f5d2b10";

export const EXAMPLE_REFERENCE = REFERENCE;

export const SEND_AIRTIME_REQUEST_EXAMPLES = {
  detected: {
    summary: "Service detected from the account prefix",
    value: {
      account: "0712345678",
      amount: 100,
      currency: "KES",
      reference: REFERENCE,
    } satisfies SendAirtimeRequest,
  },
  explicit: {
    summary: "Explicit service, body idempotency key, a second wallet",
    value: {
      service: "airtel",
      account: "+254733123456",
      amount: 250.5,
      currency: "KES",
      reference: "ORDER-2026-0002",
      idempotencyKey: KEY,
      name: "Wanjiku",
      phone: "+254722000111",
      shortcode: "600100",
    } satisfies SendAirtimeRequest,
  },
  networkAlias: {
    summary: "`network` as an alias of `service`",
    value: {
      network: "telkom",
      account: "254770123456",
      amount: 50,
      currency: "KES",
      reference: "ORDER-2026-0003",
    } satisfies SendAirtimeRequest,
  },
} satisfies NamedExamples;

/** A body whose amount is below `minAmount`, parsed to produce the `validation_failed` example's issues. */
export function invalidAmountRequest(minAmount: number): Record<string, unknown> {
  return { ...SEND_AIRTIME_REQUEST_EXAMPLES.detected.value, amount: minAmount - 1 };
}

export const SEND_AIRTIME_RESPONSE_EXAMPLES = {
  pending: {
    summary: "Order accepted, top-up pending",
    value: { id: ORDER_ID, reference: REFERENCE, status: 0, message: "Pending" } satisfies SendAirtimeResponse,
  },
  replayed: {
    summary: "Retry with the same key: same id, latest status (with Idempotent-Replayed: true)",
    value: { id: ORDER_ID, reference: REFERENCE, status: 20, message: "Success" } satisfies SendAirtimeResponse,
  },
} satisfies NamedExamples;

export const FAILED_ORDER_EXAMPLES = {
  insufficientBalance: {
    summary: "Insufficient balance: the failed-order envelope, without id",
    value: { reference: REFERENCE, status: 7, message: "Insufficient balance", code: "insufficient_balance" },
  },
} satisfies NamedExamples;

/** One finished order, shared by the public and admin documents' examples. */
export const SUCCESS_STATUS_BODY: TransactionStatusResponse = {
  id: ORDER_ID,
  reference: REFERENCE,
  status: 20,
  message: "Success",
  service: "safaricom",
  account: "+254712345678",
  amount: 100,
  currency: "KES",
  shortcode: null,
  createdAt: PLACED_AT,
  updatedAt: FINAL_AT,
  history: [
    { status: 0, message: "Pending", at: PLACED_AT },
    { status: 20, message: "Success", at: FINAL_AT },
  ],
};

export const TRANSACTION_STATUS_EXAMPLES = {
  success: { summary: "Final: Success", value: SUCCESS_STATUS_BODY },
  pending: {
    summary: "Still pending",
    value: {
      ...SUCCESS_STATUS_BODY,
      status: 0,
      message: "Pending",
      updatedAt: PLACED_AT,
      history: [{ status: 0, message: "Pending", at: PLACED_AT }],
    } satisfies TransactionStatusResponse,
  },
  failed: {
    summary: "Final: Failed (the wallet was refunded)",
    value: {
      ...SUCCESS_STATUS_BODY,
      status: 2,
      message: "Failed",
      shortcode: "600100",
      history: [
        { status: 0, message: "Pending", at: PLACED_AT },
        { status: 2, message: "Failed", at: FINAL_AT },
      ],
    } satisfies TransactionStatusResponse,
  },
} satisfies NamedExamples;

export const BALANCE_EXAMPLES = {
  defaultWallet: {
    summary: "The default wallet",
    value: {
      status: 20,
      amount: 9900,
      currency: "KES",
      shortcode: null,
      wallets: [
        { shortcode: null, amount: 9900, currency: "KES", default: true },
        { shortcode: "600100", amount: 2500.5, currency: "KES", default: false },
      ],
    },
  },
  byShortcode: {
    summary: "The wallet of `?shortcode=600100`",
    value: {
      status: 20,
      amount: 2500.5,
      currency: "KES",
      shortcode: "600100",
      wallets: [
        { shortcode: null, amount: 9900, currency: "KES", default: true },
        { shortcode: "600100", amount: 2500.5, currency: "KES", default: false },
      ],
    },
  },
} satisfies NamedExamples;

export const TOKEN_EXAMPLES = {
  issued: {
    summary: "A token valid for one hour",
    value: { access_token: "tok_5vq8x2m4k7c1b9n3z6w0", issued_at: 1772442900000, expires_in: 3600 },
  },
} satisfies NamedExamples;

/** The webhook for that order, shared by the public and admin documents' examples. */
export const SUCCESS_WEBHOOK: WebhookPayload = {
  type: "airtime.status",
  id: ORDER_ID,
  reference: REFERENCE,
  status: 20,
  message: "Success",
  final: true,
  service: "safaricom",
  account: "+254712345678",
  amount: 100,
  balance: 9900,
  currency: "KES",
  shortcode: null,
  timestamp: FINAL_AT,
};

export const WEBHOOK_EXAMPLES = {
  success: { summary: "The order reached Success", value: SUCCESS_WEBHOOK },
  reversed: {
    summary: "A successful order was reversed (the wallet was refunded)",
    value: {
      ...SUCCESS_WEBHOOK,
      status: 8,
      message: "Reversed",
      balance: 10000,
      timestamp: "2026-03-02T10:00:00.000Z",
    } satisfies WebhookPayload,
  },
} satisfies NamedExamples;

/** The Standard Webhooks test-vector secret: the header examples really sign the `success` body with it. */
export const EXAMPLE_WEBHOOK_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const WEBHOOK_MESSAGE_ID = "msg_2c6k8m0q4t7v9x1z3b5d";
const WEBHOOK_SENT_AT = new Date(FINAL_AT);

/** The headers of the first delivery attempt of the `success` example, body as `JSON.stringify` writes it. */
export const WEBHOOK_HEADER_EXAMPLES = {
  ...signWebhook({
    id: WEBHOOK_MESSAGE_ID,
    timestampSeconds: Math.floor(WEBHOOK_SENT_AT.getTime() / 1000),
    body: JSON.stringify(SUCCESS_WEBHOOK),
    secrets: [EXAMPLE_WEBHOOK_SECRET],
  }),
} as const;

export const EXAMPLE_IDEMPOTENCY_KEY = KEY;
