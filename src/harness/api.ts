/**
 * The public API as the harness calls it: every response is judged by the
 * conformance checks before a command looks at it, faults are requested from
 * the fault proxy, and a dropped response is resolved to what the target
 * answered (the proxy saw it), so the model knows what the client missed.
 */
import type { CompiledProfile } from "../contract/provider-profile/compile.ts";
import { type Checker, HarnessError, UnreachableError } from "./checker.ts";
import { assertConformance, type ConformanceOptions } from "./conformance.ts";
import type { Endpoint } from "./target-spec.ts";
import type { ProxyObservation } from "./fault-proxy.ts";
import { type Fault, REQUEST_ID_HEADER } from "./faults.ts";
import type { HttpClient, HttpOutcome, HttpRequestSpec, HttpResponse } from "./http-client.ts";
import type { Strictness } from "./strictness.ts";
import type { TargetSpec } from "./target-spec.ts";
import type { TokenSource } from "./token-source.ts";

/** Where a request carries its idempotency key; `none`: it carries none (the key is optional, §4.4). */
export type KeyLocation = "header" | "body" | "none";

export interface SendAirtimeCall {
  readonly token: string | undefined;
  /** A body object (serialised here) or raw text (sent as is). */
  readonly body: Readonly<Record<string, unknown>> | string;
  readonly key?: string;
  readonly keyIn?: KeyLocation;
  readonly fault?: Fault;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * What a call came to: the response; the fault that ate it and what the
 * target had answered; or no answer to trust — a 5xx (never_server_error's
 * to judge, once) or a connection that broke after the request was sent —
 * which leaves what the target did unknown.
 */
export type CallResult =
  | { readonly kind: "response"; readonly response: HttpResponse }
  | { readonly kind: "lost"; readonly fault: Fault; readonly observed: ProxyObservation | undefined }
  | {
      readonly kind: "unanswered";
      readonly reason: string;
      /** The network error, when the connection broke (absent for a 5xx). */
      readonly networkCode?: string;
    };

export interface PublicApi {
  sendAirtime(call: SendAirtimeCall): Promise<CallResult>;
  lookup(
    reference: string,
    options: { readonly token: string | undefined; readonly fault?: Fault },
  ): Promise<CallResult>;
  balance(options: { readonly token: string | undefined; readonly fault?: Fault }): Promise<CallResult>;
  /** Any request, judged as `endpoint`. */
  raw(spec: HttpRequestSpec, endpoint: Endpoint): Promise<CallResult>;
}

export interface PublicApiOptions {
  readonly client: HttpClient;
  readonly checker: Checker;
  /** Looks up what the fault proxy saw for a request id; absent when no proxy is in the path. */
  readonly observe?: (requestId: string) => ProxyObservation | undefined;
  readonly prism?: boolean;
  /** Unique per run, so request ids never collide across runs. */
  readonly requestIdPrefix: string;
  /** What the conformance checks judge (default strict) and where bodies keep what they read. */
  readonly profile?: Strictness;
  readonly provider?: CompiledProfile;
  readonly targetSpec?: TargetSpec;
  /** Expiring tokens (`--token-command`): a stale token is replaced, a 401 after it worked refreshes it. */
  readonly tokens?: TokenSource;
  /** Under `interface`, a 429 is waited out (`Retry-After`) and the request sent again (§8: limits not shown). */
  readonly waitOutRateLimits?: boolean;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function authHeaders(token: string | undefined): Record<string, string> {
  return token === undefined ? {} : { authorization: `Bearer ${token}` };
}

/** Network errors that come before a request reaches the target: it is out of reach, nothing was sent. */
const NEVER_SENT = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);

/** A 429 is waited out at most this many times per request, each wait capped. */
const MAX_RATE_LIMIT_WAITS = 5;
const MAX_RETRY_AFTER_MS = 2000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** `Retry-After` in seconds (or an HTTP date), capped; a short pause when absent. */
function retryAfterMs(outcome: HttpOutcome): number {
  const header = outcome.kind === "response" ? outcome.headers["retry-after"] : undefined;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : header === undefined ? NaN : Date.parse(header) - Date.now();
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(50, Number.isFinite(ms) ? ms : 200));
}

function bearerOf(spec: HttpRequestSpec): string | undefined {
  const header = spec.headers?.authorization;
  return header?.startsWith("Bearer ") === true ? header.slice("Bearer ".length) : undefined;
}

/** `spec` with `token` as its bearer token. */
function withBearer(spec: HttpRequestSpec, token: string): HttpRequestSpec {
  return { ...spec, headers: { ...spec.headers, authorization: `Bearer ${token}` } };
}

/** `spec` with the token source's current token in place of a stale one. */
function withCurrentToken(spec: HttpRequestSpec, tokens: TokenSource | undefined): HttpRequestSpec {
  const token = bearerOf(spec);
  if (token === undefined || tokens === undefined) return spec;
  const current = tokens.current(token);
  return current === token ? spec : withBearer(spec, current);
}

/**
 * What every call of one client shares: its options, what the conformance
 * checks are told, and the counter its request ids are drawn from. The
 * steps of a call are functions over it, so each reads on its own.
 */
interface Caller {
  readonly options: PublicApiOptions;
  readonly conformance: ConformanceOptions;
  nextRequestId(): string;
}

/** A request as last sent, and what came of it. */
interface Sent {
  readonly spec: HttpRequestSpec;
  readonly outcome: HttpOutcome;
}

/** The harness's client of the public API, one per run: each call is judged before a property sees it. */
export function createPublicApi(options: PublicApiOptions): PublicApi {
  let counter = 0;
  const caller: Caller = {
    options,
    conformance: {
      prism: options.prism === true,
      ...(options.profile === undefined ? {} : { profile: options.profile }),
      ...(options.provider === undefined ? {} : { provider: options.provider }),
      ...(options.targetSpec === undefined ? {} : { targetSpec: options.targetSpec }),
    },
    nextRequestId: () => `${options.requestIdPrefix}-${++counter}`,
  };
  const call = (spec: HttpRequestSpec, endpoint: Endpoint) => callEndpoint(caller, spec, endpoint);
  return {
    sendAirtime: (request) => call(sendAirtimeSpec(request), "send_airtime"),
    lookup: (reference, { token, fault }) =>
      call(readSpec(`/v1/airtime/${encodeURIComponent(reference)}`, token, fault), "lookup"),
    balance: ({ token, fault }) => call(readSpec("/v1/balance", token, fault), "balance"),
    raw: call,
  };
}

/** `POST /v1/airtime`: the body as given, its idempotency key in a header (the default), in the body or nowhere. */
function sendAirtimeSpec(request: SendAirtimeCall): HttpRequestSpec {
  const keyIn = request.keyIn ?? "header";
  const withKey =
    typeof request.body === "string" || request.key === undefined || keyIn !== "body"
      ? request.body
      : { ...request.body, idempotencyKey: request.key };
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json",
    ...authHeaders(request.token),
    ...(request.key !== undefined && keyIn === "header" ? { "idempotency-key": request.key } : {}),
    ...request.headers,
  };
  return {
    method: "POST",
    path: "/v1/airtime",
    headers,
    body: typeof withKey === "string" ? withKey : JSON.stringify(withKey),
    ...(request.fault === undefined ? {} : { fault: request.fault }),
  };
}

/** A `GET` of the public API, as `token`, with a fault when one is asked for. */
function readSpec(path: string, token: string | undefined, fault: Fault | undefined): HttpRequestSpec {
  return {
    method: "GET",
    path,
    headers: { accept: "application/json", ...authHeaders(token) },
    ...(fault === undefined ? {} : { fault }),
  };
}

/**
 * One call: sent with the current token, rate limits waited out, an expired
 * token renewed once, and the result judged.
 */
async function callEndpoint(caller: Caller, original: HttpRequestSpec, endpoint: Endpoint): Promise<CallResult> {
  const requestId = caller.nextRequestId();
  const spec = withCurrentToken(original, caller.options.tokens);
  const sent = await renewExpiredToken(caller, await sendWaitingOutLimits(caller, spec, requestId), requestId);
  return judge(caller, sent, endpoint, requestId);
}

/** Sends once; the request id goes along only when the fault proxy is to act on the request. */
function sendOnce(caller: Caller, spec: HttpRequestSpec, requestId: string): Promise<HttpOutcome> {
  const headers = spec.fault === undefined ? spec.headers : { ...spec.headers, [REQUEST_ID_HEADER]: requestId };
  return caller.options.client.send({ ...spec, ...(headers === undefined ? {} : { headers }) });
}

/** Sends; under `waitOutRateLimits` a 429 is waited out and the request sent again, a few times at most. */
async function sendWaitingOutLimits(caller: Caller, spec: HttpRequestSpec, requestId: string): Promise<Sent> {
  const shouldWaitOut = (outcome: HttpOutcome) =>
    caller.options.waitOutRateLimits === true && outcome.kind === "response" && outcome.status === 429;
  let outcome = await sendOnce(caller, spec, requestId);
  for (let waits = 0; shouldWaitOut(outcome) && waits < MAX_RATE_LIMIT_WAITS; waits++) {
    await sleep(retryAfterMs(outcome));
    outcome = await sendOnce(caller, spec, requestId);
  }
  return { spec, outcome };
}

/**
 * With expiring tokens: a token answered with anything but 401 worked; a
 * 401 asks for a fresh token and, when there is one, sends once more with it.
 */
async function renewExpiredToken(caller: Caller, sent: Sent, requestId: string): Promise<Sent> {
  const { tokens } = caller.options;
  const token = bearerOf(sent.spec);
  if (sent.outcome.kind !== "response" || token === undefined || tokens === undefined) return sent;
  if (sent.outcome.status !== 401) {
    tokens.worked(token);
    return sent;
  }
  const fresh = await tokens.expired(token);
  if (fresh === undefined) return sent;
  const spec = withBearer(sent.spec, fresh);
  return { spec, outcome: await sendOnce(caller, spec, requestId) };
}

/**
 * What a call came to: a response the conformance checks passed, or a loss
 * the fault proxy was asked for, with the target's own answer judged when the
 * proxy saw it. A target out of reach, or a response that should have been
 * lost, ends the run.
 */
function judge(caller: Caller, sent: Sent, endpoint: Endpoint, requestId: string): CallResult {
  const { spec, outcome } = sent;
  const { checker } = caller.options;
  const eats = spec.fault?.kind === "drop_response" || spec.fault?.kind === "reset_before";
  if (outcome.kind === "network_error") {
    if (spec.fault !== undefined && eats) {
      const observed = caller.options.observe?.(requestId);
      // The target's answer is judged even though the client never saw it.
      if (observed?.upstream !== undefined) {
        const { status, headers, text } = observed.upstream;
        const answer: HttpResponse = { kind: "response", status, headers, text, json: parseJson(text) };
        assertConformance(checker, endpoint, answer, caller.conformance);
      }
      return { kind: "lost", fault: spec.fault, observed };
    }
    // An order sent on a connection that then broke may have been placed: what the target did is unknown.
    if (spec.method === "POST" && !NEVER_SENT.has(outcome.code)) {
      return { kind: "unanswered", reason: `the connection broke (${outcome.code})`, networkCode: outcome.code };
    }
    throw new UnreachableError(
      `${spec.method} ${spec.path}: the target could not be reached (${outcome.code}: ${outcome.message})`,
      outcome.code,
    );
  }
  if (eats) {
    throw new HarnessError(
      `${spec.method} ${spec.path}: a response arrived although the fault proxy was asked to lose it`,
    );
  }
  assertConformance(checker, endpoint, outcome, caller.conformance);
  // Judged by never_server_error alone: a 5xx says nothing of what the target did.
  if (outcome.status >= 500) return { kind: "unanswered", reason: `HTTP ${outcome.status}` };
  return { kind: "response", response: outcome };
}
