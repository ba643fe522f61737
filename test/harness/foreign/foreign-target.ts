/**
 * A foreign provider: a correct deployment of the airtime interface written
 * from the interface document alone, as another company would write it. It
 * shares no code with our simulator or our contract schemas, and it differs
 * from our spec (spec/openapi.yaml, docs/webhooks.md) wherever the interface
 * says "not shown" — in every such dimension at once:
 *
 * | # | Dimension (interface §) | Our spec | The foreign provider |
 * |---|---|---|---|
 * | 1 | Send answer body (§2.3) | `{id, reference, status, message}` | `{success: true, data: {transactionId, reference, statusCode, message}}` |
 * | 2 | Lookup body (§2.4) | flat `{id, reference, status, amount, …}` | `{success: true, data: {transactionId, ref, status, amount, msisdn, network, …}}` |
 * | 3 | Balance body (§2.4) | `{status, amount, currency, wallets}` | `{success: true, data: {available, currency, shortcode}}` |
 * | 4 | Money (§2.4) | numbers (`150`) | decimal strings (`"150.00"`) in lookup, balance and webhook |
 * | 5 | Statuses (§3) | codes everywhere (20 Success, 2 Failed, 6 Timeout, 8 Reversed) | words in lookup and webhook (SUCCESS, FAILED, TIMEOUT, REVERSED); its own codes in the send answer (100, 101, 102, 103) |
 * | 6 | Error body (§7) | problem+json, flat `code` | `{success: false, error: {code, message}}`, application/json |
 * | 7 | Error codes (§7) | validation_failed, missing_token, not_found … | INVALID_REQUEST, UNAUTHORIZED, NOT_FOUND, DUPLICATE_REFERENCE, RATE_LIMITED |
 * | 8 | Invalid input (§7) | 400 | 422, malformed JSON included |
 * | 9 | Authentication failure (§5, §7) | 401 with `WWW-Authenticate: Bearer` | 401 without `WWW-Authenticate` |
 * | 10 | Insufficient balance (§7) | 402 with `code` | 200, `success: false`, status 104, no `transactionId` |
 * | 11 | Wrong method (§4) | 405 with `Allow` | 404 NOT_FOUND |
 * | 12 | Replay marker (§4.4) | `Idempotent-Replayed: true` | no header: a replay looks like the first answer |
 * | 13 | Webhook body (§6) | flat order, `type: airtime.status` | `{event: airtime.completed / airtime.failed / airtime.reversed, data: {…order}, sentAt}` |
 * | 14 | Webhook delivery id (§6) | `webhook-id` | `X-Delivery-Id`, the same on every retry |
 * | 15 | Webhook signature (§6) | Standard Webhooks (`webhook-signature`, base64) | `X-Signature: sha256=<hex HMAC-SHA256 of "<X-Timestamp>.<body>">` |
 * | 16 | Webhook retries (§6) | Standard Webhooks schedule | first attempt, then after 300 ms, 1.5 s, 5 s (configurable) |
 * | 17 | Webhook registration (§6) | per customer, admin API | one URL and secret given when the provider starts |
 * | 18 | Amount (§2.1, §8) | 10–10,000 KES, 2 decimals | 10–5,000 KES, whole shillings |
 * | 19 | Reference (§2.1) | up to 100 characters, any but control | `^[A-Za-z0-9-]{6,24}$` |
 * | 20 | Account (§2.1) | four written forms | local (07…, 01…) and international (254…) only; no `+` |
 * | 21 | Services (§2.2) | the five | safaricom, airtel, telkom |
 * | 22 | Tokens (§5) | fixed tokens | `POST /oauth/token` (client credentials, HTTP Basic), short-lived |
 * | 23 | Rate limit (§8) | none | 429 with `Retry-After` above N requests per second |
 * | 24 | Body limit (§8) | 413 above 64 KiB | the connection is reset above 64 KiB |
 * | 25 | Wallets (§2.1 `shortcode`) | several per customer | one per customer; another shortcode is invalid input |
 */
import { once } from "node:events";
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type { ForeignDefect } from "./defects.ts";
import { createRateLimiter, createTokenIssuer, type ClientCredentials } from "./foreign-gate.ts";
import { createLedger, type ForeignOrder, type LedgerFaults, type Range, type StatusWord } from "./foreign-ledger.ts";
import { createForeignRoutes } from "./foreign-routes.ts";
import { orderView } from "./foreign-views.ts";
import { createWebhookSender, type WebhookEvent, type WebhookRegistration } from "./foreign-webhooks.ts";

export interface ForeignTargetOptions {
  /** Seeds the delays and outcomes of orders. Default 1. */
  readonly seed?: number;
  /** One planted defect; absent → the correct provider. */
  readonly defect?: ForeignDefect;
  /** Pending → final, ms. Default 100–400. */
  readonly finalDelayMs?: Range;
  /** Success → Reversed, ms after the Success. Default 200–600. */
  readonly reversalDelayMs?: Range;
  /** Share of orders that end FAILED or TIMEOUT (refunded). Default 0.25. */
  readonly failureRate?: number;
  /** Share of SUCCESS orders later REVERSED (refunded). Default 0.2. */
  readonly reversalRate?: number;
  /** How long a token lives, ms. Default 10 minutes. */
  readonly tokenLifetimeMs?: number;
  /** Requests per second above which `/v1` answers 429. Default 100. */
  readonly requestsPerSecond?: number;
  /** The first customer's balance, KES. Default 1,000,000. */
  readonly balanceKes?: number;
  /** The second customer's balance, KES. Default 1,000. */
  readonly otherBalanceKes?: number;
  /** Where the first customer's webhooks go, and the secret they are signed with. */
  readonly webhook?: WebhookRegistration;
  /** Waits before each webhook retry, ms. Default 300, 1500, 5000. */
  readonly webhookRetryMs?: readonly number[];
}

export interface ForeignTarget {
  readonly url: string;
  /** A live token of each customer (they expire like any other). */
  readonly tokens: { readonly primary: string; readonly other: string };
  readonly credentials: { readonly primary: ClientCredentials; readonly other: ClientCredentials };
  /** A shell command that prints a fresh token of the first customer (`--token-command`). */
  readonly tokenCommand: string;
  /** Recipients the provider accepts, one per service, in both written forms. */
  readonly accounts: readonly string[];
  close(): Promise<void>;
}

const PRIMARY = "cust-primary";
const OTHER = "cust-other";
const SHORTCODE = "600900";
const FOREIGN_ACCOUNTS = ["0712000101", "254733000202", "0770000303"] as const;
const PRINT_TOKEN = fileURLToPath(new URL("./print-token.ts", import.meta.url));

function faultsOf(defect: ForeignDefect | undefined): LedgerFaults {
  return {
    sharedKeys: defect === "cross_customer_keys",
    crossCustomerLookup: defect === "cross_customer_lookup",
    debitOnReplay: defect === "replay_double_debit",
    acceptMismatch: defect === "mismatch_accepted",
    failureRefunds: defect === "failure_not_refunded" ? 0 : defect === "failure_refunded_twice" ? 2 : 1,
    refundReversal: defect !== "reversal_not_refunded",
  };
}

function eventOf(status: StatusWord): WebhookEvent {
  if (status === "SUCCESS") return "airtime.completed";
  return status === "REVERSED" ? "airtime.reversed" : "airtime.failed";
}

/** The webhook of an order that just became final, as the defect (if any) spoils it. */
function webhookOf(order: ForeignOrder, defect: ForeignDefect | undefined) {
  const failed = order.status === "FAILED" || order.status === "TIMEOUT";
  if (failed && defect === "no_webhook_for_failures") return undefined;
  const spoiled = order.status === "TIMEOUT" && defect === "webhook_status_differs";
  return { event: eventOf(order.status), data: orderView(order, spoiled ? "FAILED" : order.status) };
}

function newCredentials(): ClientCredentials {
  return { clientId: `ci_${randomBytes(6).toString("hex")}`, clientSecret: randomBytes(18).toString("base64url") };
}

/**
 * Starts the foreign provider on 127.0.0.1, on a free port.
 *
 * @example
 * const provider = await startForeignTarget({ webhook: { url: receiverUrl, secret: "s3cret" } });
 * await fetch(`${provider.url}/v1/balance`, { headers: { authorization: `Bearer ${provider.tokens.primary}` } });
 * await provider.close();
 */
export async function startForeignTarget(options: ForeignTargetOptions = {}): Promise<ForeignTarget> {
  const defect = options.defect;
  const credentials = { primary: newCredentials(), other: newCredentials() };
  const issuer = createTokenIssuer(
    new Map([
      [PRIMARY, credentials.primary],
      [OTHER, credentials.other],
    ]),
    options.tokenLifetimeMs ?? 600_000,
  );
  const sender =
    options.webhook === undefined
      ? undefined
      : createWebhookSender(options.webhook, options.webhookRetryMs ?? [300, 1500, 5000]);
  const ledger = createLedger({
    seed: options.seed ?? 1,
    finalDelayMs: options.finalDelayMs ?? { min: 100, max: 400 },
    reversalDelayMs: options.reversalDelayMs ?? { min: 200, max: 600 },
    failureRate: options.failureRate ?? 0.25,
    reversalRate: options.reversalRate ?? 0.2,
    balancesCents: new Map([
      [PRIMARY, (options.balanceKes ?? 1_000_000) * 100],
      [OTHER, (options.otherBalanceKes ?? 1_000) * 100],
    ]),
    faults: faultsOf(defect),
    onFinal: (order) => {
      if (sender === undefined || order.customerId !== PRIMARY) return;
      const webhook = webhookOf(order, defect);
      if (webhook !== undefined) sender.send(webhook.event, webhook.data);
    },
  });
  const routes = createForeignRoutes({
    defect,
    shortcode: SHORTCODE,
    primary: PRIMARY,
    issuer,
    ledger,
    limiter: createRateLimiter(options.requestsPerSecond ?? 100),
  });
  const server = createServer((req: IncomingMessage, res: ServerResponse) => void routes.handle(req, res));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    tokens: { primary: issuer.issueFor(PRIMARY), other: issuer.issueFor(OTHER) },
    credentials,
    tokenCommand: `npx tsx ${PRINT_TOKEN} ${url} ${credentials.primary.clientId} ${credentials.primary.clientSecret}`,
    accounts: FOREIGN_ACCOUNTS,
    async close() {
      sender?.close();
      ledger.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
