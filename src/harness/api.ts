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

export function createPublicApi(options: PublicApiOptions): PublicApi {
  let counter = 0;
  const conformance = {
    prism: options.prism === true,
    ...(options.profile === undefined ? {} : { profile: options.profile }),
    ...(options.provider === undefined ? {} : { provider: options.provider }),
    ...(options.targetSpec === undefined ? {} : { targetSpec: options.targetSpec }),
  };

  async function call(spec: HttpRequestSpec, endpoint: Endpoint): Promise<CallResult> {
    const requestId = `${options.requestIdPrefix}-${++counter}`;
    const headers = spec.fault === undefined ? spec.headers : { ...spec.headers, [REQUEST_ID_HEADER]: requestId };
    const outcome: HttpOutcome = await options.client.send({ ...spec, ...(headers === undefined ? {} : { headers }) });
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
