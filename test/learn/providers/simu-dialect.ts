/**
 * Simu Float, a test provider: an `ok` flag and a `payload`, the status a
 * lower-case word at `payload.progress.phase` (processing, done, declined,
 * timed_out, undone) beside a step counter, money as decimal strings,
 * errors as a list of problems (`problems[0].reason`), 403 for a bad token,
 * an insufficient float answered 200 without an order number, a wrong
 * method 404; webhooks `{topic: "order.status", id, payload}` with the
 * delivery id in the body, signed `v1=<hex HMAC-SHA512 of
 * "<Simu-Time>.<body>">` in `Simu-Signature`, and `float.changed` events mixed
 * in.
 */
import { createHmac } from "node:crypto";
import type { ForeignOrder, StatusWord } from "../../harness/foreign/foreign-ledger.ts";
import type { Dialect } from "./dialect.ts";

const PHASES: Record<StatusWord, string> = {
  PENDING: "processing",
  SUCCESS: "done",
  FAILED: "declined",
  TIMEOUT: "timed_out",
  REVERSED: "undone",
  INSUFFICIENT_FUNDS: "declined",
};
const CODES: Record<StatusWord, number> = {
  PENDING: 0,
  SUCCESS: 10,
  FAILED: 11,
  TIMEOUT: 12,
  REVERSED: 13,
  INSUFFICIENT_FUNDS: 14,
};
const STEPS: Record<StatusWord, number> = {
  PENDING: 1,
  SUCCESS: 2,
  FAILED: 2,
  TIMEOUT: 2,
  REVERSED: 3,
  INSUFFICIENT_FUNDS: 2,
};

const money = (cents: number) => (cents / 100).toFixed(2);
const orderNo = (order: ForeignOrder) => `SM${order.id.slice(2, 10)}${order.id.slice(-4).toLowerCase()}`;

function payload(order: ForeignOrder, status: StatusWord) {
  return {
    orderNo: orderNo(order),
    merchantReference: order.input.reference,
    progress: { phase: PHASES[status], step: STEPS[status] },
    amount: money(order.input.amountCents),
    recipient: order.input.account,
    updatedAt: order.updatedAt,
  };
}

export const SIMU: Dialect = {
  name: "Simu Float",
  domain: {
    minKes: 20,
    maxKes: 3000,
    decimals: 2,
    reference: /^[A-Za-z0-9_-]{8,40}$/,
    account: /^(?:0|\+254)[17]\d{8}$/,
    services: ["safaricom", "airtel", "telkom"],
  },
  code: (status) => CODES[status],
  word: (status) => PHASES[status],
  sendAnswer: (order, status) => ({
    ok: true,
    payload: {
      orderNo: orderNo(order),
      merchantReference: order.input.reference,
      code: CODES[status],
      text: PHASES[status],
    },
  }),
  lookup: (order, status) => ({ ok: true, payload: payload(order, status) }),
  balance: (cents) => ({ ok: true, payload: { float: money(cents), held: "0.00" } }),
  refusals: {
    invalidInput: { status: 400, code: "BAD_INPUT" },
    unauthorized: { status: 403, code: "FORBIDDEN" },
    insufficient: { status: 200, code: "FLOAT_TOO_LOW" },
    notFound: { status: 404, code: "UNKNOWN_ORDER" },
    wrongMethod: { status: 404, code: "UNKNOWN_ROUTE" },
    mismatch: { status: 409, code: "idempotency_payload_mismatch" },
  },
  error: (code, message, order) => ({
    ok: false,
    ...(order === undefined
      ? {}
      : { payload: { merchantReference: order.reference, code: CODES.INSUFFICIENT_FUNDS, text: "float too low" } }),
    problems: [{ reason: code, hint: message }],
  }),
  orderEvent: (order, status, eventId) => ({
    topic: "order.status",
    id: eventId,
    occurredAt: new Date().toISOString(),
    payload: payload(order, status),
  }),
  sideEvents: (_order, balanceCents, eventId) => [
    { topic: "float.changed", id: eventId, payload: { float: money(balanceCents) } },
  ],
  sign(body, _eventId, secret, timestampSeconds) {
    const timestamp = String(timestampSeconds);
    const digest = createHmac("sha512", secret).update(`${timestamp}.${body}`).digest("hex");
    return { "Simu-Time": timestamp, "Simu-Signature": `v1=${digest}` };
  },
};
