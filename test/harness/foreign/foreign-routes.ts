/**
 * The foreign provider's request pipeline, top to bottom: rate limit → route
 * (a wrong method is an unknown route: 404) → token → body (reset above
 * 64 KiB) → the endpoint. Every answer is JSON in the provider's envelope.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { randomBytes } from "node:crypto";
import type { ForeignDefect } from "./defects.ts";
import type { RateLimiter, TokenIssuer } from "./foreign-gate.ts";
import { createOrderParser, type OrderInput } from "./foreign-input.ts";
import { FOREIGN_STATUSES, isFinal, type ForeignOrder, type Ledger, type PlaceOutcome } from "./foreign-ledger.ts";
import { money, orderView } from "./foreign-views.ts";

export interface RouteSettings {
  readonly defect: ForeignDefect | undefined;
  readonly shortcode: string;
  /** The customer that the auth defects let anyone act as. */
  readonly primary: string;
  readonly issuer: TokenIssuer;
  readonly limiter: RateLimiter;
  readonly ledger: Ledger;
  /** A new order's connection is reset once it is placed: the answer never goes out. */
  readonly resetAfterCommit: boolean;
}

const BODY_LIMIT_BYTES = 64 * 1024;
const BALANCE_CACHE_MS = 5000;
/** How long the racy key check of `concurrent_duplicates` waits between looking and storing. */
const RACE_WINDOW_MS = 100;
const JSON_MEDIA_TYPE = /^application\/json\s*(;|$)/i;
const LOOKUP_PATH = /^\/v1\/airtime\/([^/]+)$/;

function reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
  res.end(JSON.stringify(body));
}

function fail(res: ServerResponse, status: number, code: string, message: string, extra: object = {}): void {
  reply(res, status, { success: false, error: { code, message, ...extra } });
}

/** The body, or undefined when it was too large and the connection has been reset. */
async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const reset = () => {
    req.socket.resetAndDestroy();
    return undefined;
  };
  if (Number(req.headers["content-length"] ?? 0) > BODY_LIMIT_BYTES) return reset();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > BODY_LIMIT_BYTES) return reset();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function headerText(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}

function fakeId(): string {
  return `TX${randomBytes(7).toString("hex").toUpperCase()}`;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function createForeignRoutes(settings: RouteSettings) {
  const { defect, ledger } = settings;
  /** Well-formed JSON orders refused by the order schema: what a client drawing outside the domain costs. */
  let refusedOrders = 0;
  const parseOrder = createOrderParser({
    keyMaxLength: defect === "key_255_rejected" ? 254 : 255,
    crashOnBadAmount: defect === "server_error_on_bad_amount",
    currencyDefaultsToKes: defect === "missing_currency_accepted",
    shortcode: settings.shortcode,
  });
  const cachedBalances = new Map<string, { readonly body: unknown; readonly at: number }>();

  function customerOf(req: IncomingMessage): string | undefined {
    const token = /^Bearer\s+(\S+)$/i.exec(headerText(req, "authorization") ?? "")?.[1];
    if (token === undefined) return defect === "no_token_accepted" ? settings.primary : undefined;
    const customer = settings.issuer.customerOf(token);
    return customer ?? (defect === "wrong_token_accepted" ? settings.primary : undefined);
  }

  async function issueToken(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    if (body === undefined) return;
    const grant = new URLSearchParams(body).get("grant_type");
    if (grant !== null && grant !== "client_credentials") {
      return reply(res, 400, { error: "unsupported_grant_type" });
    }
    const issued = settings.issuer.issue(headerText(req, "authorization"));
    if (issued === undefined) return reply(res, 401, { error: "invalid_client" });
    reply(res, 200, { access_token: issued.token, token_type: "Bearer", expires_in: issued.expiresInMs / 1000 });
  }

  async function place(customer: string, order: OrderInput, key: string | undefined): Promise<PlaceOutcome> {
    if (defect === "concurrent_duplicates" && key !== undefined && ledger.orderForKey(customer, key) === undefined) {
      await delay(RACE_WINDOW_MS);
      return ledger.place(customer, order, key, true);
    }
    return ledger.place(customer, order, key);
  }

  function orderAnswer(order: ForeignOrder, replayed: boolean) {
    const status = replayed && defect === "replay_stale_status" ? "PENDING" : order.status;
    const id = replayed && defect === "replay_new_id" ? fakeId() : order.id;
    const omitId = replayed && defect === "replay_missing_id";
    const { code, message } = FOREIGN_STATUSES[status];
    return {
      success: true,
      data: {
        ...(omitId ? {} : { transactionId: id }),
        reference: order.input.reference,
        statusCode: defect === "answer_status_as_word" ? status : code,
        message,
      },
    };
  }

  async function sendAirtime(req: IncomingMessage, res: ServerResponse, customer: string): Promise<void> {
    const text = await readBody(req);
    if (text === undefined) return;
    if (!JSON_MEDIA_TYPE.test(headerText(req, "content-type") ?? "")) {
      return fail(res, 422, "INVALID_REQUEST", "the body must be application/json");
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return fail(res, 422, "INVALID_REQUEST", "the body is not valid JSON");
    }
    const parsed = parseOrder(body, headerText(req, "idempotency-key"));
    if (parsed.ok === "crash") {
      res.writeHead(500, { "content-type": "text/plain" });
      return void res.end("TypeError: amount.toFixed is not a function");
    }
    if (!parsed.ok) refusedOrders += 1;
    if (!parsed.ok) return fail(res, 422, "INVALID_REQUEST", parsed.problems.join("; "), { details: parsed.problems });
    const outcome = await place(customer, parsed.order, parsed.key);
    if (outcome.kind === "placed" && settings.resetAfterCommit) return void req.socket.resetAndDestroy();
    switch (outcome.kind) {
      case "placed":
      case "replayed":
        return reply(res, 200, orderAnswer(outcome.order, outcome.kind === "replayed"));
      case "mismatch": {
        const message = "this idempotency key was used with another payload";
        if (defect === "mismatch_wrong_code") return fail(res, 409, "DUPLICATE_REQUEST", message);
        return fail(res, defect === "mismatch_wrong_status" ? 422 : 409, "idempotency_payload_mismatch", message);
      }
      case "duplicate_reference":
        return fail(res, 409, "DUPLICATE_REFERENCE", "an order with this reference exists");
      case "insufficient_balance": {
        const { code, message } = FOREIGN_STATUSES.INSUFFICIENT_FUNDS;
        const id = defect === "failed_order_keeps_id" ? { transactionId: fakeId() } : {};
        const data = { ...id, reference: parsed.order.reference, statusCode: code, message };
        return reply(res, 200, { success: false, data, error: { code: "INSUFFICIENT_FUNDS", message } });
      }
      default: {
        const never: never = outcome;
        throw new Error(`unhandled outcome ${JSON.stringify(never)}`);
      }
    }
  }

  function lookup(res: ServerResponse, customer: string, encoded: string): void {
    let reference: string;
    try {
      reference = decodeURIComponent(encoded);
    } catch {
      return fail(res, 404, "NOT_FOUND", "no such transaction");
    }
    const order = ledger.lookup(customer, reference);
    if (order === undefined) return fail(res, 404, "NOT_FOUND", "no such transaction");
    let status = order.status;
    if (isFinal(status)) {
      order.finalReads += 1;
      if (defect === "final_back_to_pending" && order.finalReads % 2 === 0) status = "PENDING";
    }
    reply(res, 200, { success: true, data: orderView(order, status) });
  }

  function balance(res: ServerResponse, customer: string): void {
    const cached = cachedBalances.get(customer);
    if (defect === "balance_cached" && cached !== undefined && Date.now() - cached.at < BALANCE_CACHE_MS) {
      return reply(res, 200, cached.body);
    }
    const data = { available: money(ledger.balanceCents(customer)), currency: "KES", shortcode: settings.shortcode };
    const body = { success: true, data };
    cachedBalances.set(customer, { body, at: Date.now() });
    reply(res, 200, body);
  }

  /** The endpoint a request names, once its customer is known; undefined → no such route. */
  function route(req: IncomingMessage, path: string) {
    if (req.method === "POST" && path === "/v1/airtime") {
      return (res: ServerResponse, customer: string) => sendAirtime(req, res, customer);
    }
    if (req.method === "GET" && path === "/v1/balance") {
      return (res: ServerResponse, customer: string) => balance(res, customer);
    }
    const encoded = req.method === "GET" ? LOOKUP_PATH.exec(path)?.[1] : undefined;
    if (encoded !== undefined) return (res: ServerResponse, customer: string) => lookup(res, customer, encoded);
    return undefined;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (req.method === "POST" && path === "/oauth/token") return issueToken(req, res);
    if (path.startsWith("/v1/")) {
      const wait = settings.limiter.admit();
      if (wait !== undefined) {
        const body = { success: false, error: { code: "RATE_LIMITED", message: "too many requests" } };
        return reply(res, 429, body, { "retry-after": String(wait) });
      }
    }
    const endpoint = route(req, path);
    if (endpoint === undefined) return fail(res, 404, "NOT_FOUND", `no route for ${req.method} ${path}`);
    const customer = customerOf(req);
    if (customer === undefined) return fail(res, 401, "UNAUTHORIZED", "a valid bearer token is required");
    await endpoint(res, customer);
  }

  return {
    refusedOrders: () => refusedOrders,
    async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
      try {
        await handle(req, res);
      } catch (error) {
        // A bug of this test target, not a planted defect: say so loudly rather than hang the client.
        if (!res.headersSent) fail(res, 500, "INTERNAL", String(error));
      }
    },
  };
}
