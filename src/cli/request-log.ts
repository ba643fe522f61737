/**
 * `serve`'s request log: one line per request, written when its response
 * has ended from the facts the journal records (method, path with any
 * credential in the query redacted, status, duration, customer, idempotency
 * outcome, scenario rules fired). Never a header, a token or a body.
 *
 * JSON lines go through pino, so a log shipper gets the level, time and
 * message fields it expects. The readable format is one hand-made line:
 * pino-pretty would re-parse every JSON line and bring a dozen packages to
 * print what a template string prints. With level `silent` there is no
 * listener at all, so a quiet simulator does no logging work.
 */
import { pino } from "pino";
import type { JournalRecord } from "../http/journal.ts";
import { LOG_LEVELS } from "../simulator/config-schema.ts";
import type { Colours } from "./colours.ts";

export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFormat = "pretty" | "json";

export interface RequestLogSettings {
  readonly format: LogFormat;
  readonly level: LogLevel;
}

type Writable = { write(text: string): unknown };

/** 5xx and dropped connections are errors, 4xx warnings, the rest information. */
function levelOf(status: number): "info" | "warn" | "error" {
  if (status === 0 || status >= 500) return "error";
  return status >= 400 ? "warn" : "info";
}

function rank(level: LogLevel): number {
  return LOG_LEVELS.indexOf(level);
}

/** The fields of a JSON line, besides pino's level, time and msg. */
function fieldsOf(request: JournalRecord) {
  return {
    requestId: request.requestId,
    method: request.method,
    path: request.path,
    status: request.status,
    durationMs: request.durationMs,
    customer: request.customerId,
    idempotency: request.idempotency ?? null,
    scenario: request.fired,
  };
}

/** `12:04:05.120  POST /v1/airtime  200  3.1ms  demo  replayed  flaky-gateway/first-attempt-503` */
function formatRequestLine(request: JournalRecord, colours: Colours): string {
  const time = new Date(request.wallMs).toISOString().slice(11, 23);
  const status = request.status === 0 ? "dropped" : String(request.status);
  const paint = { info: colours.green, warn: colours.yellow, error: colours.red }[levelOf(request.status)];
  const parts = [
    colours.dim(time),
    `${request.method} ${request.path}`,
    paint(status),
    `${request.durationMs.toFixed(1)}ms`,
    request.customerId ?? "-",
  ];
  if (request.idempotency !== undefined) parts.push(request.idempotency);
  if (request.fired.length > 0) parts.push(`scenario ${request.fired.join(",")}`);
  return parts.join("  ");
}

/** The listener for `createSimulator({ onRequest })`; undefined when nothing is to be logged. */
export function createRequestLog(
  settings: RequestLogSettings,
  out: Writable,
  colours: Colours,
): ((request: JournalRecord) => void) | undefined {
  if (settings.level === "silent") return undefined;
  if (settings.format === "json") {
    const logger = pino({ level: settings.level, base: null, timestamp: pino.stdTimeFunctions.isoTime }, out);
    return (request) => {
      logger[levelOf(request.status)](fieldsOf(request), `${request.method} ${request.path} ${request.status}`);
    };
  }
  const threshold = rank(settings.level);
  return (request) => {
    if (rank(levelOf(request.status)) >= threshold) out.write(`${formatRequestLine(request, colours)}\n`);
  };
}
