/**
 * The harness's HTTP client: raw requests (any method, any body text, any
 * headers, so malformed JSON and wrong content types can be sent), one
 * outcome union (a response or a network error — a lost response is a value,
 * not an exception), and a record of every exchange so a failure can be
 * printed as curl commands.
 */
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import type { Fault } from "./faults.ts";
import { FAULT_HEADER, formatFault } from "./faults.ts";

export interface HttpRequestSpec {
  readonly method: string;
  /** Path and query, e.g. `/v1/airtime/ORDER%201`. */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Raw body text, sent as is. */
  readonly body?: string;
  /** Asks the harness's fault proxy to misbehave on this request. */
  readonly fault?: Fault;
  readonly timeoutMs?: number;
}

export interface HttpResponse {
  readonly kind: "response";
  readonly status: number;
  /** Lower-cased names; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
  /** The parsed body, or undefined when it is not JSON. */
  readonly json: unknown;
}

export interface HttpNetworkError {
  readonly kind: "network_error";
  /** e.g. ECONNRESET, ECONNREFUSED, ETIMEDOUT. */
  readonly code: string;
  readonly message: string;
}

export type HttpOutcome = HttpResponse | HttpNetworkError;

export interface Exchange {
  readonly request: HttpRequestSpec;
  readonly outcome: HttpOutcome;
  /** When the request was sent (wall clock, epoch ms), and how long its answer took. */
  readonly startedAt: number;
  readonly durationMs: number;
}

export interface HttpClient {
  /** Where requests go (the fault proxy, or the target itself). */
  readonly baseUrl: string;
  send(spec: HttpRequestSpec): Promise<HttpOutcome>;
  /** Called with every finished exchange started while it was set (the transcript of a run). */
  onExchange(listener: ((exchange: Exchange) => void) | undefined): void;
}

/** Per request, unless the client or the request says otherwise; a contract run's default too. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

/**
 * @example
 * const client = createHttpClient("http://127.0.0.1:4010");
 * const outcome = await client.send({ method: "GET", path: "/v1/balance", headers: { authorization: "Bearer t" } });
 * if (outcome.kind === "response") console.log(outcome.status, outcome.json);
 */
export function createHttpClient(
  baseUrl: string,
  { timeoutMs = DEFAULT_REQUEST_TIMEOUT_MS }: { readonly timeoutMs?: number } = {},
): HttpClient {
  const base = new URL(baseUrl);
  let listener: ((exchange: Exchange) => void) | undefined;
  return {
    baseUrl,
    onExchange(next) {
      listener = next;
    },
    async send(spec) {
      // The listener when the request starts: a request a finished run left in flight lands in that run's
      // transcript, not as a stray first step of the next run.
      const tell = listener;
      const startedAt = Date.now();
      const started = performance.now();
      const outcome = await sendOnce(base, spec, spec.timeoutMs ?? timeoutMs);
      tell?.({ request: spec, outcome, startedAt, durationMs: performance.now() - started });
      return outcome;
    },
  };
}

/**
 * One request to a whole URL (a webhook handler, an app's state endpoint),
 * its query kept, through the same client.
 *
 * @example
 * const outcome = await sendToUrl("http://localhost:3000/webhooks?v=2", { method: "POST", body: "{}" });
 */
export function sendToUrl(url: string, spec: Omit<HttpRequestSpec, "path">): Promise<HttpOutcome> {
  const parsed = new URL(url);
  return createHttpClient(parsed.origin).send({ ...spec, path: `${parsed.pathname}${parsed.search}` });
}

function joinUrl(base: URL, path: string): URL {
  const prefix = base.pathname.replace(/\/+$/, "");
  return new URL(`${base.protocol}//${base.host}${prefix}${path}`);
}

function sendOnce(base: URL, spec: HttpRequestSpec, timeoutMs: number): Promise<HttpOutcome> {
  const url = joinUrl(base, spec.path);
  const headers: Record<string, string> = { ...spec.headers };
  if (spec.fault !== undefined) headers[FAULT_HEADER] = formatFault(spec.fault);
  if (spec.body !== undefined) headers["content-length"] = String(Buffer.byteLength(spec.body));
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<HttpOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: HttpOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    // A fresh connection per request: a keep-alive socket the fault proxy
    // reset would otherwise surface as a spurious error on the next request.
    const req = send(url, { method: spec.method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", (error: NodeJS.ErrnoException) => finish(networkError(error)));
      res.on("aborted", () => finish({ kind: "network_error", code: "ECONNRESET", message: "response aborted" }));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        finish({
          kind: "response",
          status: res.statusCode ?? 0,
          headers: flatten(res.headers),
          text,
          json: parseJson(text),
        });
      });
    });
    const timer = setTimeout(() => {
      finish({ kind: "network_error", code: "ETIMEDOUT", message: `no response within ${timeoutMs} ms` });
      req.destroy();
    }, timeoutMs);
    req.on("error", (error: NodeJS.ErrnoException) => finish(networkError(error)));
    req.end(spec.body);
  });
}

function networkError(error: NodeJS.ErrnoException): HttpNetworkError {
  return { kind: "network_error", code: error.code ?? "ERR_NETWORK", message: error.message };
}

function flatten(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

function parseJson(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
