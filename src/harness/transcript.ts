/**
 * The transcript of one run: each step's name and the HTTP exchanges it made,
 * so a counterexample can be printed as a step list with a curl command per
 * request. Secrets never appear: tokens are replaced by shell variables.
 */
import { describeFault, REQUEST_ID_HEADER } from "./faults.ts";
import type { Exchange, HttpRequestSpec } from "./http-client.ts";
import type { ExchangeRecord } from "./failure-evidence.ts";

export interface TranscriptStep {
  readonly label: string;
  readonly exchanges: Exchange[];
}

export interface Transcript {
  /** Starts a new step; later exchanges belong to it. */
  step(label: string): void;
  record(exchange: Exchange): void;
  steps(): readonly TranscriptStep[];
}

export function createTranscript(): Transcript {
  const steps: TranscriptStep[] = [];
  return {
    step(label) {
      steps.push({ label, exchanges: [] });
    },
    record(exchange) {
      if (steps.length === 0) steps.push({ label: "(setup)", exchanges: [] });
      steps[steps.length - 1]?.exchanges.push(exchange);
    },
    steps: () => steps,
  };
}

export interface CurlOptions {
  /** What to print as the base URL (the target's, or `$AIRTIME_URL` for an in-process simulator). */
  readonly baseUrl: string;
  /** Secret values and the shell variable that stands for each, e.g. token → `$AIRTIME_TOKEN`. */
  readonly secrets: ReadonlyMap<string, string>;
}

/**
 * One request as a curl command. Faults are the harness proxy's doing, so
 * they are printed as a comment, not reproduced by curl.
 *
 * @example
 * toCurl({ method: "GET", path: "/v1/balance", headers: { authorization: "Bearer t" } },
 *        { baseUrl: "$AIRTIME_URL", secrets: new Map([["t", "$AIRTIME_TOKEN"]]) });
 * // curl -sS -i -X GET "$AIRTIME_URL/v1/balance" -H "authorization: Bearer $AIRTIME_TOKEN"
 */
export function toCurl(request: HttpRequestSpec, options: CurlOptions): string {
  const redact = redactor(options.secrets);
  const parts = ["curl -sS -i", `-X ${request.method}`, doubleQuote(`${options.baseUrl}${request.path}`)];
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    // The request id only tells the harness's own proxy which request it is.
    if (name === REQUEST_ID_HEADER) continue;
    parts.push(`-H ${doubleQuote(redact(`${name}: ${value}`))}`);
  }
  if (request.body !== undefined) parts.push(`--data-raw ${singleQuote(redact(request.body))}`);
  const fault = request.fault === undefined ? "" : `  # fault: ${describeFault(request.fault)}`;
  return `${parts.join(" ")}${fault}`;
}

/** The longest body a report keeps; the rest is cut, its length said. */
const MAX_BODY_CHARS = 2000;

/**
 * One exchange as a report shows it: request and response with secrets as
 * shell variables (a response may echo a token), bodies cut short.
 */
export function toExchangeRecord(exchange: Exchange, options: Pick<CurlOptions, "secrets">): ExchangeRecord {
  const redact = redactor(options.secrets);
  const { request, outcome } = exchange;
  const headers = Object.fromEntries(
    Object.entries(request.headers ?? {})
      .filter(([name]) => name !== REQUEST_ID_HEADER)
      .map(([name, value]) => [name, redact(value)]),
  );
  return {
    request: {
      method: request.method,
      path: redact(request.path),
      headers,
      ...(request.body === undefined ? {} : { body: cut(redact(request.body)) }),
      ...(request.fault === undefined ? {} : { fault: describeFault(request.fault) }),
    },
    response:
      outcome.kind === "response"
        ? {
            kind: "response",
            status: outcome.status,
            headers: Object.fromEntries(Object.entries(outcome.headers).map(([name, value]) => [name, redact(value)])),
            body: cut(redact(outcome.text)),
          }
        : { kind: "network_error", code: outcome.code, message: outcome.message },
    startedAt: exchange.startedAt,
    durationMs: Math.round(exchange.durationMs),
  };
}

function redactor(secrets: ReadonlyMap<string, string>): (text: string) => string {
  return (text) => {
    let out = text;
    for (const [secret, variable] of secrets) if (secret !== "") out = out.split(secret).join(variable);
    return out;
  };
}

function cut(text: string): string {
  return text.length > MAX_BODY_CHARS ? `${text.slice(0, MAX_BODY_CHARS)}…(${text.length} bytes)` : text;
}

/** Double quotes keep `$VARIABLES` expandable; other specials are escaped. */
function doubleQuote(text: string): string {
  return `"${text.replace(/(["\\`])/g, "\\$1")}"`;
}

function singleQuote(text: string): string {
  return `'${cut(text).replace(/'/g, `'\\''`)}'`;
}
