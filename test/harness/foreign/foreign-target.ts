/**
 * A foreign provider: a correct deployment of the airtime interface written
 * from the interface document alone, as another company would write it. It
 * shares no code with our simulator or our contract schemas, and it differs
 * from our spec (spec/openapi.yaml, docs/webhooks.md) wherever the interface
 * says "not shown" — in every such dimension at once.
 *
 * The table of those differences, row by row, heads foreign-target.test.ts,
 * whose tests show them over HTTP.
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
  /** The first customer's balance, KES: more than a long run spends at 5,000 an order. Default 10,000,000. */
  readonly balanceKes?: number;
  /** The second customer's balance, KES. Default 1,000. */
  readonly otherBalanceKes?: number;
  /** Where the first customer's webhooks go, and the secret they are signed with. */
  readonly webhook?: WebhookRegistration;
  /** Waits before each webhook retry, ms. Default 300, 1500, 5000. */
  readonly webhookRetryMs?: readonly number[];
  /**
   * Every new order is placed and debited, then its connection is reset
   * before the answer goes out (a gateway that times out on its backend):
   * only a replay with the same key tells the client its id. Correct: the
   * interface promises no answer, only that a replay finds the order.
   */
  readonly resetAfterCommit?: boolean;
}

export interface ForeignTarget {
  readonly url: string;
  /**
   * A live token of each customer. The first customer's expires like any
   * other, and `tokenCommand` renews it; the second's is handed out for the
   * whole test (ten minutes at least), since `--other-token` has no command
   * to renew it.
   */
  readonly tokens: { readonly primary: string; readonly other: string };
  readonly credentials: { readonly primary: ClientCredentials; readonly other: ClientCredentials };
  /** A shell command that prints a fresh token of the first customer (`--token-command`). */
  readonly tokenCommand: string;
  /** Recipients the provider accepts, one per service, in both written forms. */
  readonly accounts: readonly string[];
  /** How many requests its rate limit has refused (429) so far. */
  rateLimited(): number;
  /** How many well-formed orders its order schema has refused (422) so far. */
  refusedOrders(): number;
  close(): Promise<void>;
}

const PRIMARY = "cust-primary";
const OTHER = "cust-other";
const OTHER_TOKEN_LIFETIME_MS = 600_000;
const SHORTCODE = "600900";
const FOREIGN_ACCOUNTS = ["0712000101", "254733000202", "0770000303"] as const;
const PRINT_TOKEN = fileURLToPath(new URL("./print-token.mjs", import.meta.url));

export function faultsOf(defect: ForeignDefect | undefined): LedgerFaults {
  return {
    sharedKeys: defect === "cross_customer_keys",
    crossCustomerLookup: defect === "cross_customer_lookup",
    debitOnReplay: defect === "replay_double_debit",
    acceptMismatch: defect === "mismatch_accepted",
    failureRefunds: defect === "failure_not_refunded" ? 0 : defect === "failure_refunded_twice" ? 2 : 1,
    refundReversal: defect !== "reversal_not_refunded",
    debitRefused: defect === "failed_order_debited",
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
      [PRIMARY, (options.balanceKes ?? 10_000_000) * 100],
      [OTHER, (options.otherBalanceKes ?? 1_000) * 100],
    ]),
    faults: faultsOf(defect),
    onFinal: (order) => {
      if (sender === undefined || order.customerId !== PRIMARY) return;
      const webhook = webhookOf(order, defect);
      if (webhook !== undefined) sender.send(webhook.event, webhook.data);
    },
  });
  const limiter = createRateLimiter(options.requestsPerSecond ?? 100);
  const routes = createForeignRoutes({
    defect,
    shortcode: SHORTCODE,
    primary: PRIMARY,
    issuer,
    ledger,
    limiter,
    resetAfterCommit: options.resetAfterCommit === true,
  });
  const server = createServer((req: IncomingMessage, res: ServerResponse) => void routes.handle(req, res));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    tokens: {
      primary: issuer.issueFor(PRIMARY),
      other: issuer.issueFor(OTHER, Math.max(options.tokenLifetimeMs ?? 0, OTHER_TOKEN_LIFETIME_MS)),
    },
    credentials,
    // Plain node, neither npx nor a TypeScript loader: five runs side by side each start one.
    tokenCommand: `node ${PRINT_TOKEN} ${url} ${credentials.primary.clientId} ${credentials.primary.clientSecret}`,
    accounts: FOREIGN_ACCOUNTS,
    rateLimited: () => limiter.refused,
    refusedOrders: () => routes.refusedOrders(),
    async close() {
      sender?.close();
      ledger.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** What a contract run against the provider needs, as `--profile interface` with fixed tokens. */
export function interfaceRunAgainst(target: ForeignTarget) {
  return {
    target: target.url,
    token: target.tokens.primary,
    otherToken: target.tokens.other,
    accounts: [...target.accounts],
    profile: "interface",
  } as const;
}
