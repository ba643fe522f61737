/**
 * The engine of the test providers of `profile init --from-target`: real
 * HTTP on a free port, fixed bearer tokens for two customers, books kept by
 * the foreign provider's ledger (seeded delays and outcomes, planted
 * defects), orders validated against the dialect's domain, every answer and
 * webhook written by the dialect, webhooks retried until acknowledged. It
 * counts what the first customer spent, as the provider's books show it.
 */
import { once } from "node:events";
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ForeignDefect } from "../../harness/foreign/defects.ts";
import type { OrderInput } from "../../harness/foreign/foreign-input.ts";
import {
  createLedger,
  isFinal,
  type ForeignOrder,
  type Range,
  type StatusWord,
} from "../../harness/foreign/foreign-ledger.ts";
import { faultsOf } from "../../harness/foreign/foreign-target.ts";
import type { Dialect, Refusal } from "./dialect.ts";
import { createDeliverer } from "./deliverer.ts";

export interface ProviderOptions {
  readonly seed?: number;
  readonly defect?: ForeignDefect;
  readonly finalDelayMs?: Range;
  readonly failureRate?: number;
  /** The share of the failures that end in TIMEOUT rather than FAILED (default a half). */
  readonly timeoutShare?: number;
  readonly reversalRate?: number;
  /** Deal the outcomes in blocks of this many orders, each holding the rates exactly (see the ledger). */
  readonly outcomeBlock?: number;
  readonly reversalDelayMs?: Range;
  readonly webhook?: { readonly url: string; readonly secret: string };
  readonly otherBalanceKes?: number;
}

export interface TestProvider {
  readonly url: string;
  readonly tokens: { readonly primary: string; readonly other: string };
  /** KES of the orders placed for the first customer, refunds not deducted: what a probe spent. */
  spentKes(): number;
  /** Every request it has received, as `METHOD /path`. */
  requests(): readonly string[];
  close(): Promise<void>;
}

const PRIMARY = "primary";
const OTHER = "other";
const PRIMARY_CENTS = 5_000_000_00;
const LOOKUP = /^\/v1\/airtime\/([^/]+)$/;

export async function startProvider(dialect: Dialect, options: ProviderOptions = {}): Promise<TestProvider> {
  const defect = options.defect;
  const tokens = { primary: `tok_${randomUUID()}`, other: `tok_${randomUUID()}` };
  const deliverer = options.webhook === undefined ? undefined : createDeliverer(dialect, options.webhook);
  const ledger = createLedger({
    seed: options.seed ?? 1,
    finalDelayMs: options.finalDelayMs ?? { min: 100, max: 400 },
    reversalDelayMs: options.reversalDelayMs ?? { min: 200, max: 600 },
    failureRate: options.failureRate ?? 0.25,
    ...(options.timeoutShare === undefined ? {} : { timeoutShare: options.timeoutShare }),
    reversalRate: options.reversalRate ?? 0.2,
    ...(options.outcomeBlock === undefined ? {} : { outcomeBlock: options.outcomeBlock }),
    balancesCents: new Map([
      [PRIMARY, PRIMARY_CENTS],
      [OTHER, (options.otherBalanceKes ?? 300) * 100],
    ]),
    faults: faultsOf(defect),
    onFinal(order) {
      if (order.customerId !== PRIMARY || deliverer === undefined) return;
      const failed = order.status === "FAILED" || order.status === "TIMEOUT";
      if (failed && defect === "no_webhook_for_failures") return;
      const status = order.status === "TIMEOUT" && defect === "webhook_status_differs" ? "FAILED" : order.status;
      deliverer.send((id) => dialect.orderEvent(order, status, id));
    },
  });
  const finalReads = new Map<string, number>();
  let placedCents = 0;
  const received: string[] = [];

  function customerOf(req: IncomingMessage): string | undefined {
    const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "")?.[1];
    if (token === tokens.primary) return PRIMARY;
    if (token === tokens.other) return OTHER;
    if (defect === "wrong_token_accepted" && token !== undefined) return PRIMARY;
    if (defect === "no_token_accepted" && token === undefined) return PRIMARY;
    return undefined;
  }

  const reply = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  };
  const refuse = (res: ServerResponse, refusal: Refusal, message: string, order?: Record<string, unknown>) => {
    const { status, code } = dialect.refusals[refusal];
    const wrongCode = refusal === "mismatch" && defect === "mismatch_wrong_code" ? "DUPLICATE" : code;
    reply(res, status, dialect.error(wrongCode, message, order));
  };

  /** The status a lookup shows: every second read of a final order says pending under `final_back_to_pending`. */
  function shown(order: ForeignOrder): StatusWord {
    if (defect !== "final_back_to_pending" || !isFinal(order.status)) return order.status;
    const reads = (finalReads.get(order.id) ?? 0) + 1;
    finalReads.set(order.id, reads);
    return reads % 2 === 0 ? "PENDING" : order.status;
  }

  function place(res: ServerResponse, customer: string, body: unknown, key: string | undefined): void {
    const input = parseOrder(dialect, body, defect === "missing_currency_accepted");
    if (typeof input === "string") return refuse(res, "invalidInput", input);
    const outcome = ledger.place(customer, input, key);
    if (outcome.kind === "mismatch") return refuse(res, "mismatch", "the key was used with another payload");
    if (outcome.kind === "duplicate_reference") return refuse(res, "invalidInput", "reference already used");
    if (outcome.kind === "insufficient_balance") {
      const order = { reference: input.reference };
      return refuse(
        res,
        "insufficient",
        "balance too low",
        dialect.refusals.insufficient.status === 200 ? order : undefined,
      );
    }
    const order = outcome.order;
    if (outcome.kind === "placed" && customer === PRIMARY) {
      placedCents += order.input.amountCents;
      deliverer?.send((id) => dialect.sideEvents(order, ledger.balanceCents(PRIMARY), id)[0]);
    }
    if (outcome.kind === "replayed" && defect === "replay_new_id") {
      return reply(res, 200, dialect.sendAnswer({ ...order, id: `${order.id.slice(0, -3)}ZZZ` }, order.status));
    }
    const status = outcome.kind === "replayed" && defect === "replay_stale_status" ? "PENDING" : order.status;
    reply(res, 200, dialect.sendAnswer(order, status));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    received.push(`${req.method} ${req.url}`);
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
    const path = (req.url ?? "/").split("?")[0] as string;
    const known = path === "/v1/airtime" || path === "/v1/balance" || LOOKUP.test(path);
    if (!known) return refuse(res, "notFound", "no such route");
    const customer = customerOf(req);
    if (customer === undefined) return refuse(res, "unauthorized", "a valid bearer token is required");
    const lookup = LOOKUP.exec(path);
    if (req.method === "GET" && path === "/v1/balance")
      return reply(res, 200, dialect.balance(ledger.balanceCents(customer)));
    if (req.method === "GET" && lookup !== null) {
      const order = ledger.lookup(customer, decodeURIComponent(lookup[1] as string));
      return order === undefined
        ? refuse(res, "notFound", "no such order")
        : reply(res, 200, dialect.lookup(order, shown(order)));
    }
    if (req.method === "POST" && path === "/v1/airtime") {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        return refuse(res, "invalidInput", "the body is not JSON");
      }
      const header = req.headers["idempotency-key"];
      const field = (body as { idempotencyKey?: unknown } | null)?.idempotencyKey;
      // §4.4: the key comes in the header or in the body; §8: it is 1 to 255 characters.
      const key = typeof header === "string" ? header : typeof field === "string" ? field : undefined;
      if (key !== undefined && (key.length === 0 || key.length > 255)) {
        return refuse(res, "invalidInput", "Idempotency-Key must be 1 to 255 characters");
      }
      return place(res, customer, body, key);
    }
    refuse(res, "wrongMethod", `${req.method} is not allowed here`);
  }

  const server = createServer((req, res) => void handle(req, res));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tokens,
    spentKes: () => placedCents / 100,
    requests: () => received,
    async close() {
      deliverer?.close();
      ledger.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The order in a body, or what is wrong with it, by the dialect's domain. */
function parseOrder(dialect: Dialect, body: unknown, currencyOptional: boolean): OrderInput | string {
  const fields = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  const { domain } = dialect;
  const amount = fields.amount;
  if (typeof amount !== "number" || !(amount >= domain.minKes && amount <= domain.maxKes)) {
    return `amount must be a number from ${domain.minKes} to ${domain.maxKes}`;
  }
  if (Math.round(amount * 10 ** domain.decimals) !== amount * 10 ** domain.decimals)
    return "amount has too many decimals";
  if (fields.currency !== "KES" && !(currencyOptional && fields.currency === undefined)) return "currency must be KES";
  if (typeof fields.reference !== "string" || !domain.reference.test(fields.reference)) return "reference is not valid";
  if (typeof fields.account !== "string" || !domain.account.test(fields.account)) return "account is not valid";
  if (typeof fields.service !== "string" || !domain.services.includes(fields.service)) return "service is not served";
  const input: OrderInput = {
    service: fields.service,
    account: fields.account.replace(/^(?:0|\+254)/, "254"),
    amountCents: Math.round(amount * 100),
    currency: "KES",
    reference: fields.reference,
    shortcode: "-",
    name: undefined,
    phone: undefined,
  };
  return input;
}
