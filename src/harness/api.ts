/**
 * The public API as the harness calls it: every response is judged by the
 * conformance checks before a command looks at it, faults are requested from
 * the fault proxy, and a dropped response is resolved to what the target
 * answered (the proxy saw it), so the model knows what the client missed.
 */
import type { CompiledProfile } from "../contract/provider-profile/compile.ts";
import { type Checker, HarnessError, UnreachableError } from "./checker.ts";
import { assertConformance } from "./conformance.ts";
import type { Endpoint } from "./target-spec.ts";
import type { ProxyObservation } from "./fault-proxy.ts";
import { type Fault, REQUEST_ID_HEADER } from "./faults.ts";
import type { HttpClient, HttpOutcome, HttpRequestSpec, HttpResponse } from "./http-client.ts";
import type { Profile } from "./profiles.ts";
import type { TargetSpec } from "./target-spec.ts";
import type { TokenSource } from "./token-source.ts";

export type KeyLocation = "header" | "body";

export interface SendAirtimeCall {
  readonly token: string | undefined;
  /** A body object (serialised here) or raw text (sent as is). */
  readonly body: Readonly<Record<string, unknown>> | string;
  readonly key?: string;
  readonly keyIn?: KeyLocation;
  readonly fault?: Fault;
  readonly headers?: Readonly<Record<string, string>>;
}

/** What a call came to: the response, or the fault that ate it and what the target had answered. */
export type CallResult =
  | { readonly kind: "response"; readonly response: HttpResponse }
  | { readonly kind: "lost"; readonly fault: Fault; readonly observed: ProxyObservation | undefined };

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
  readonly profile?: Profile;
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

export function createPublicApi(options: PublicApiOptions): PublicApi {
  const shouldWaitOut = (outcome: HttpOutcome) =>
    options.waitOutRateLimits === true && outcome.kind === "response" && outcome.status === 429;
  const withCurrentToken = (spec: HttpRequestSpec): HttpRequestSpec => {
    const token = bearerOf(spec);
    if (token === undefined || options.tokens === undefined) return spec;
    const current = options.tokens.current(token);
    return current === token ? spec : { ...spec, headers: { ...spec.headers, authorization: `Bearer ${current}` } };
  };
  let counter = 0;
  const conformance = {
    prism: options.prism === true,
    ...(options.profile === undefined ? {} : { profile: options.profile }),
    ...(options.provider === undefined ? {} : { provider: options.provider }),
    ...(options.targetSpec === undefined ? {} : { targetSpec: options.targetSpec }),
  };

  async function call(original: HttpRequestSpec, endpoint: Endpoint): Promise<CallResult> {
    const requestId = `${options.requestIdPrefix}-${++counter}`;
    let spec = withCurrentToken(original);
    const send = () => {
      const headers = spec.fault === undefined ? spec.headers : { ...spec.headers, [REQUEST_ID_HEADER]: requestId };
      return options.client.send({ ...spec, ...(headers === undefined ? {} : { headers }) });
    };
    let outcome: HttpOutcome = await send();
    for (let waits = 0; shouldWaitOut(outcome) && waits < MAX_RATE_LIMIT_WAITS; waits++) {
      await sleep(retryAfterMs(outcome));
      outcome = await send();
    }
    const token = bearerOf(spec);
    if (outcome.kind === "response" && token !== undefined && options.tokens !== undefined) {
      if (outcome.status !== 401) options.tokens.worked(token);
      else {
        const fresh = await options.tokens.expired(token);
        if (fresh !== undefined) {
          spec = { ...spec, headers: { ...spec.headers, authorization: `Bearer ${fresh}` } };
          outcome = await send();
        }
      }
    }
    const eats = spec.fault?.kind === "drop_response" || spec.fault?.kind === "reset_before";
    if (outcome.kind === "network_error") {
      if (spec.fault !== undefined && eats) {
        const observed = options.observe?.(requestId);
        // The target's answer is judged even though the client never saw it.
        if (observed?.upstream !== undefined) {
          const { status, headers: answerHeaders, text } = observed.upstream;
          assertConformance(
            options.checker,
            endpoint,
            { kind: "response", status, headers: answerHeaders, text, json: parseJson(text) },
            conformance,
          );
        }
        return { kind: "lost", fault: spec.fault, observed };
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
    assertConformance(options.checker, endpoint, outcome, conformance);
    return { kind: "response", response: outcome };
  }

  return {
    sendAirtime(request) {
      const keyIn = request.keyIn ?? "header";
      const withKey =
        typeof request.body === "string" || request.key === undefined || keyIn === "header"
          ? request.body
          : { ...request.body, idempotencyKey: request.key };
      const headers: Record<string, string> = {
        "content-type": "application/json",
        accept: "application/json",
        ...authHeaders(request.token),
        ...(request.key !== undefined && keyIn === "header" ? { "idempotency-key": request.key } : {}),
        ...request.headers,
      };
      return call(
        {
          method: "POST",
          path: "/v1/airtime",
          headers,
          body: typeof withKey === "string" ? withKey : JSON.stringify(withKey),
          ...(request.fault === undefined ? {} : { fault: request.fault }),
        },
        "send_airtime",
      );
    },
    lookup(reference, { token, fault }) {
      return call(
        {
          method: "GET",
          path: `/v1/airtime/${encodeURIComponent(reference)}`,
          headers: { accept: "application/json", ...authHeaders(token) },
          ...(fault === undefined ? {} : { fault }),
        },
        "lookup",
      );
    },
    balance({ token, fault }) {
      return call(
        {
          method: "GET",
          path: "/v1/balance",
          headers: { accept: "application/json", ...authHeaders(token) },
          ...(fault === undefined ? {} : { fault }),
        },
        "balance",
      );
    },
    raw: call,
  };
}
