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
 *
 * The lines go to stdout through an asynchronous sonic-boom destination
 * (pino's own): on a pipe or a file, a synchronous write per request cost a
 * system call on the request path. In front of it, the lines of up to
 * {@link LOG_BATCH_MS} ms are gathered and handed over as one write: under
 * load sonic-boom alone still wrote whenever its last write came back,
 * thousands of writes a second, and those writes were half of what the log
 * cost in a profile. No line waits for a buffer to fill, only for those few
 * milliseconds; what is pending is written out at shutdown and on any exit.
 */
import { pino } from "pino";
import type { JournalRecord } from "../http/journal.ts";
import { LOG_LEVELS } from "../simulator/config-schema.ts";
import type { Paint } from "../report/console.ts";

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

/**
 * `HH:MM:SS.mmm` of a wall-clock time, UTC. The `HH:MM:SS` part is formatted
 * once a second, not per line: under load, a Date and its ISO string per
 * request showed in the profile.
 */
function createClock(): (wallMs: number) => string {
  let second = Number.NaN;
  let prefix = "";
  return (wallMs) => {
    const ms = Math.floor(wallMs);
    const thisSecond = Math.floor(ms / 1000);
    if (thisSecond !== second) {
      second = thisSecond;
      prefix = new Date(thisSecond * 1000).toISOString().slice(11, 19);
    }
    return `${prefix}.${String(ms - thisSecond * 1000).padStart(3, "0")}`;
  };
}

/** `12:04:05.120  POST /v1/airtime  200  3.1ms  demo  replayed  scenario flaky-gateway/first-attempt-503` */
function createLineFormatter(colours: Paint): (request: JournalRecord) => string {
  const clock = createClock();
  const paintOf = { info: colours.green, warn: colours.yellow, error: colours.red };
  return (request) => {
    const status = request.status === 0 ? "dropped" : String(request.status);
    let line =
      `${colours.dim(clock(request.wallMs))}  ${request.method} ${request.path}  ` +
      `${paintOf[levelOf(request.status)](status)}  ${request.durationMs.toFixed(1)}ms  ${request.customerId ?? "-"}`;
    if (request.idempotency !== undefined) line += `  ${request.idempotency}`;
    if (request.fired.length > 0) line += `  scenario ${request.fired.join(",")}`;
    return `${line}\n`;
  };
}

export interface LogDestination extends Writable {
  /** Writes out every line still pending, synchronously. */
  flushSync(): void;
}

/** How long a line may wait for others before they are written together. */
const LOG_BATCH_MS = 5;
/** Written at once past this many characters, whatever the time. */
const LOG_BATCH_CHARS = 16_384;

/** Gathers what is written for up to {@link LOG_BATCH_MS} ms and hands it to `destination` as one write. */
export function createBatchingWriter(destination: LogDestination): LogDestination {
  let pending = "";
  let timer: NodeJS.Timeout | undefined;
  const handOver = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (pending === "") return;
    const text = pending;
    pending = "";
    destination.write(text);
  };
  return {
    write(text) {
      pending += text;
      if (pending.length >= LOG_BATCH_CHARS) handOver();
      // Unreferenced: a process otherwise done exits, and the exit hook writes what is left.
      else timer ??= setTimeout(handOver, LOG_BATCH_MS).unref();
    },
    flushSync() {
      handOver();
      destination.flushSync();
    },
  };
}

/**
 * Standard output as the request log's asynchronous destination, written out
 * on any exit too (a second stop signal exits at once, past the shutdown).
 */
export function openLogDestination(): LogDestination {
  const destination = createBatchingWriter(pino.destination({ dest: 1, sync: false }));
  process.once("exit", () => flushQuietly(destination));
  return destination;
}

/** Flushes, and gives up quietly when stdout is gone (a closed pipe): nothing is left to tell. */
export function flushQuietly(destination: LogDestination): void {
  try {
    destination.flushSync();
  } catch {
    // The reader has gone away; the lines have nowhere to go.
  }
}

/** The listener for `createSimulator({ onRequest })`; undefined when nothing is to be logged. */
export function createRequestLog(
  settings: RequestLogSettings,
  out: Writable,
  colours: Paint,
): ((request: JournalRecord) => void) | undefined {
  if (settings.level === "silent") return undefined;
  if (settings.format === "json") {
    const logger = pino({ level: settings.level, base: null, timestamp: pino.stdTimeFunctions.isoTime }, out);
    return (request) => {
      logger[levelOf(request.status)](fieldsOf(request), `${request.method} ${request.path} ${request.status}`);
    };
  }
  const threshold = rank(settings.level);
  const formatLine = createLineFormatter(colours);
  return (request) => {
    if (rank(levelOf(request.status)) >= threshold) out.write(formatLine(request));
  };
}
