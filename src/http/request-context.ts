/**
 * A request's life, from its first step to its journal entry: the state
 * shared along the pipeline (request id, authenticated customer, parsed
 * body, idempotency outcome, scenario rules that fired); the first step,
 * which assigns a request id and journals the request when its response
 * ends; and the JSON answer that ends it. The journal entry is also what the
 * request log prints: its facts are gathered once, at the end, whoever reads
 * them, with any credential in the URL's query redacted. Who sent the
 * request is part of its context too: the bearer authentication of both
 * APIs comes first.
 *
 * The state lives on the response under a symbol rather than in a closure:
 * the close listener is one module-level function for every request, and
 * express (the admin side) sees the same object, since its response is the
 * node:http one.
 */
import { randomUUID } from "node:crypto";
import { type IncomingMessage, ServerResponse } from "node:http";
import type { Customer } from "../domain/model.ts";
import type { Clock } from "../domain/ports.ts";
import type { IdempotencyOutcome, Journal, JournalRecord } from "./journal.ts";
import type { RequestHandler } from "express";
import { secretsEqual } from "../contract/signing.ts";
import { type AdminThrottle, createAdminThrottle } from "./admin-throttle.ts";
import { HttpProblem } from "./http-problem.ts";

// Bearer authentication for the public API and the admin API. Tokens are
// compared in constant time (the store does it for customer tokens) and
// never logged.

const BEARER = /^Bearer[ ]+([\x21-\x7E]+)[ ]*$/i;

/** The bearer token, or a problem saying why there is none. */
function bearerToken(req: IncomingMessage): string {
  const header = req.headers.authorization;
  if (header === undefined || header.trim() === "") {
    throw new HttpProblem("missing_token", "Send Authorization: Bearer <token>.", {
      headers: { "WWW-Authenticate": 'Bearer realm="airtime"' },
    });
  }
  const match = BEARER.exec(header);
  if (match?.[1] === undefined) {
    throw new HttpProblem("invalid_token", "The Authorization header is not a Bearer token.", {
      headers: { "WWW-Authenticate": 'Bearer realm="airtime", error="invalid_request"' },
    });
  }
  return match[1];
}

function invalidToken(): HttpProblem {
  return new HttpProblem("invalid_token", "The bearer token is unknown or has expired.", {
    headers: { "WWW-Authenticate": 'Bearer realm="airtime", error="invalid_token"' },
  });
}

/**
 * Authenticates a public request: the customer its bearer token belongs to,
 * kept on the request's state for the steps after it; throws the 401
 * problem otherwise.
 */
export async function authenticateRequest(
  state: RequestState,
  authenticate: (token: string) => Promise<Customer | undefined>,
): Promise<Customer> {
  const customer = await authenticate(bearerToken(state.req));
  if (customer === undefined) throw invalidToken();
  state.customer = customer;
  state.customerId = customer.id;
  return customer;
}

/**
 * The admin token guards `/_sim`. A valid customer token there is a 403
 * (authenticated, but not allowed), anything else a 401, counted against
 * the client's address: too many, and the address gets 429 for a while
 * (see `admin-throttle.ts`).
 */
export function createAdminAuth(
  adminToken: string,
  authenticate: (token: string) => Promise<Customer | undefined>,
  throttle: AdminThrottle = createAdminThrottle(),
): RequestHandler {
  return async (req, _res, next) => {
    // The socket's address, never a forwarded-for header a client could vary at will.
    const address = req.socket.remoteAddress ?? "unknown";
    const waitSeconds = throttle.retryAfterSeconds(address);
    if (waitSeconds > 0) {
      throw new HttpProblem(
        "too_many_attempts",
        `Too many failed admin authentications from this address; retry after ${waitSeconds} s.`,
        { headers: { "Retry-After": String(waitSeconds) } },
      );
    }
    const token = bearerToken(req);
    if (secretsEqual(token, adminToken)) {
      next();
      return;
    }
    if ((await authenticate(token)) !== undefined) {
      throw new HttpProblem("forbidden", "A customer token cannot use the admin API; use the admin token.");
    }
    throttle.recordFailure(address);
    throw invalidToken();
  };
}

/** Told of every request once its response has ended (or its connection dropped). */
export type RequestListener = (request: JournalRecord) => void;

/** Where finished requests are told: the journal and the request log. */
export interface RequestRecorder {
  readonly clock: Clock;
  readonly journal: Journal;
  readonly onRequest: RequestListener | undefined;
}

const NOTHING_FIRED: readonly string[] = [];

export class RequestState {
  readonly requestId: string = randomUUID();
  customerId: string | null = null;
  /** Set by authentication; the handlers after it read it. */
  customer: Customer | undefined = undefined;
  fired: readonly string[] = NOTHING_FIRED;
  idempotency: IdempotencyOutcome | undefined = undefined;
  /** Set when the request stored a new order, even if its response is then dropped or failed. */
  placed = false;
  /** The parsed JSON body; undefined for a request without one. */
  body: unknown = undefined;
  /** `X-Request-Id` is still to be written, with the answer's other headers (see {@link takePendingRequestId}). */
  requestIdPending = false;
  readonly at: number;
  readonly wallMs: number = Date.now();
  readonly started: number = performance.now();

  constructor(
    readonly req: IncomingMessage,
    /** The URL as the request arrived, before any router rewrote `req.url`. */
    readonly url: string,
    readonly recorder: RequestRecorder,
  ) {
    this.at = recorder.clock.now();
  }
}

const STATE = Symbol("airtime.request");

interface StatefulResponse extends ServerResponse {
  [STATE]?: RequestState;
}

export function requestState(res: ServerResponse): RequestState {
  return (res as StatefulResponse)[STATE] as RequestState;
}

/** `urn:uuid:…` identifies this occurrence in a problem's `instance`. */
export function problemInstance(res: ServerResponse): string {
  return `urn:uuid:${(res as StatefulResponse)[STATE]?.requestId ?? randomUUID()}`;
}

const SECRET_NAME = /token|secret|password|passwd|api[-_]?key|apikey|auth|signature|credential/i;
const REDACTED = "REDACTED";

/**
 * A request URL as the journal and the request log keep it: the value of
 * any query parameter that looks like a credential (`?access_token=…`,
 * `api_key`, `secret`…) is replaced, so a client that puts its token in the
 * URL does not leave it in a log.
 */
export function redactUrl(url: string): string {
  const query = url.indexOf("?");
  // The common case, a URL without a query, costs one scan.
  if (query < 0) return url;
  const params = url.slice(query + 1).split("&");
  let changed = false;
  for (let i = 0; i < params.length; i++) {
    const param = params[i] as string;
    const equals = param.indexOf("=");
    const name = equals < 0 ? param : param.slice(0, equals);
    if (!SECRET_NAME.test(safeDecode(name))) continue;
    params[i] = `${name}=${REDACTED}`;
    changed = true;
  }
  return changed ? `${url.slice(0, query)}?${params.join("&")}` : url;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll("+", " "));
  } catch {
    return text;
  }
}

/**
 * One listener for every request: "close" follows "finish" for an answered
 * request, and comes alone for a dropped one. `on` rather than `once`:
 * "close" is emitted once, and `once` would wrap the listener in a closure.
 */
function recordRequest(this: StatefulResponse): void {
  const state = this[STATE] as RequestState;
  const durationMs = Math.round((performance.now() - state.started) * 1000) / 1000;
  // Ended means answered, however the response is carried (a socket, or an in-process injection);
  // a dropped one is destroyed without ending.
  const status = this.writableEnded ? this.statusCode : 0;
  const path = redactUrl(state.url);
  const record: { -readonly [K in keyof JournalRecord]: JournalRecord[K] } = {
    requestId: state.requestId,
    at: state.at,
    wallMs: state.wallMs,
    method: state.req.method ?? "GET",
    path,
    status,
    customerId: state.customerId,
    fired: state.fired,
    durationMs,
  };
  // Present only when known, so a record never carries an `idempotency: undefined` key.
  if (state.idempotency !== undefined) record.idempotency = state.idempotency;
  if (state.placed) record.placed = true;
  state.recorder.journal.record(record);
  state.recorder.onRequest?.(record);
}

/**
 * A response of node:http's own class, which nothing has wrapped: an
 * injection library's response or an express app's reads the headers back
 * through `getHeaders()`, which sees only headers set one by one.
 */
function isPlainResponse(res: ServerResponse): boolean {
  return Object.getPrototypeOf(res) === ServerResponse.prototype;
}

/**
 * The request id, once, when its `X-Request-Id` header has not been set yet:
 * the answer then writes it in the same `writeHead` as its other headers.
 */
function takePendingRequestId(res: ServerResponse): string | undefined {
  const state = (res as StatefulResponse)[STATE];
  if (state?.requestIdPending !== true) return undefined;
  state.requestIdPending = false;
  return state.requestId;
}

/** Sets `X-Request-Id` now, before the response goes to code that answers by other means (express, CORS). */
export function setRequestIdHeader(res: ServerResponse): void {
  const id = takePendingRequestId(res);
  if (id !== undefined) res.setHeader("X-Request-Id", id);
}

/**
 * Starts a request: assigns its id, and journals it when its response ends.
 * On a plain node:http response the `X-Request-Id` header waits for the
 * answer's one `writeHead`: setting headers one by one costs about a
 * microsecond more per response.
 */
export function startRequest(
  req: IncomingMessage,
  res: ServerResponse,
  url: string,
  recorder: RequestRecorder,
): RequestState {
  const state = new RequestState(req, url, recorder);
  (res as StatefulResponse)[STATE] = state;
  if (isPlainResponse(res)) state.requestIdPending = true;
  else res.setHeader("X-Request-Id", state.requestId);
  res.on("close", recordRequest);
  return state;
}

/*
 * JSON answers written straight to the node:http response: the same status,
 * headers (`Content-Type: …; charset=utf-8`, `Content-Length`) and bytes as
 * express' `res.json(body)` / `res.type(t).send(text)` with this app's
 * settings (no ETag, no JSON replacer, spaces or escaping), without express'
 * generic send path. The body is serialised once, here.
 */

const JSON_TYPE = "application/json; charset=utf-8";

export function sendText(res: ServerResponse, status: number, contentType: string, text: string): void {
  const length = Buffer.byteLength(text, "utf8");
  const requestId = takePendingRequestId(res);
  if (requestId === undefined) {
    res.statusCode = status;
    res.setHeader("Content-Type", contentType);
    res.setHeader("Content-Length", length);
  } else {
    // Status and headers in one step, as a flat list (headers set before, if any, are kept).
    res.writeHead(status, ["X-Request-Id", requestId, "Content-Type", contentType, "Content-Length", String(length)]);
  }
  // A HEAD request gets the headers only, as express does.
  if (res.req.method === "HEAD") res.end();
  else res.end(text, "utf8");
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  sendText(res, status, JSON_TYPE, JSON.stringify(body));
}
