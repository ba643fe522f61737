/**
 * Jambo Pay, a test provider: everything under `result.txn`, the status a
 * word at `result.txn.state.name` (QUEUED, DELIVERED, REJECTED, EXPIRED,
 * CLAWED_BACK), money as numbers, errors as a list (`errors[0].code`),
 * webhooks `{kind: "txn.update", txn}` signed with a hex HMAC-SHA256 over
 * `<Jambo-Timestamp>.<body>` in `Jambo-Signature`, delivery id in
 * `Jambo-Delivery`, and `wallet.debited` events (which name the order's
 * reference but carry no status) mixed in.
 */
import { createHmac } from "node:crypto";
import type { ForeignOrder, StatusWord } from "../../harness/foreign/foreign-ledger.ts";
import type { Dialect } from "./dialect.ts";

const WORDS: Record<StatusWord, string> = {
  PENDING: "QUEUED",
  SUCCESS: "DELIVERED",
  FAILED: "REJECTED",
  TIMEOUT: "EXPIRED",
  REVERSED: "CLAWED_BACK",
  INSUFFICIENT_FUNDS: "REJECTED",
};
const CODES: Record<StatusWord, number> = {
  PENDING: 0,
  SUCCESS: 1,
  FAILED: 2,
  TIMEOUT: 3,
  REVERSED: 4,
  INSUFFICIENT_FUNDS: 2,
};
const NOTES: Record<StatusWord, string> = {
  PENDING: "Queued for delivery",
  SUCCESS: "Airtime delivered",
  FAILED: "Rejected by the network",
  TIMEOUT: "Expired without an answer",
  REVERSED: "Clawed back",
  INSUFFICIENT_FUNDS: "Wallet too low",
};

const kes = (cents: number) => cents / 100;
const txnId = (order: ForeignOrder) => `JB-${order.id.slice(2)}`;

function txn(order: ForeignOrder, status: StatusWord) {
  return {
    id: txnId(order),
    clientRef: order.input.reference,
    state: { name: WORDS[status], since: order.updatedAt },
    value: kes(order.input.amountCents),
    msisdn: order.input.account,
    network: order.input.service,
    createdAt: order.createdAt,
  };
}

export const JAMBO: Dialect = {
  name: "Jambo Pay",
  domain: {
    minKes: 5,
    maxKes: 2000,
    decimals: 0,
    reference: /^[A-Za-z0-9-]{8,20}$/,
    account: /^0[17]\d{8}$/,
    services: ["safaricom", "airtel"],
  },
  code: (status) => CODES[status],
  word: (status) => WORDS[status],
  sendAnswer: (order, status) => ({
    result: {
      txn: { id: txnId(order), clientRef: order.input.reference, stateCode: CODES[status], note: NOTES[status] },
    },
  }),
  lookup: (order, status) => ({ result: { txn: txn(order, status) } }),
  balance: (cents) => ({ result: { wallet: { funds: kes(cents), currency: "KES" } } }),
  refusals: {
    invalidInput: { status: 422, code: "E_VALIDATION" },
    unauthorized: { status: 401, code: "E_AUTH" },
    insufficient: { status: 402, code: "E_FUNDS" },
    notFound: { status: 404, code: "E_NO_SUCH_TXN" },
    wrongMethod: { status: 405, code: "E_METHOD" },
    mismatch: { status: 409, code: "idempotency_payload_mismatch" },
  },
  error: (code, message) => ({ errors: [{ code, detail: message }] }),
  orderEvent: (order, status) => ({ kind: "txn.update", txn: txn(order, status) }),
  sideEvents: (order, balanceCents) => [
    { kind: "wallet.debited", wallet: { funds: kes(balanceCents) }, cause: { clientRef: order.input.reference } },
  ],
  sign(body, eventId, secret, timestampSeconds) {
    const timestamp = String(timestampSeconds);
    return {
      "Jambo-Delivery": eventId,
      "Jambo-Timestamp": timestamp,
      "Jambo-Signature": createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex"),
    };
  },
};
