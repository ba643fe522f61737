/**
 * The one error path: every failure leaves the simulator as RFC 9457
 * `application/problem+json`. Errors raised by library parts (the JSON body
 * parser for compressed bodies, express' parameter decoding on the admin
 * side) are mapped to catalogue codes; anything else is a bug, answered 500
 * `internal_error` without a stack trace and reported. The public pipeline
 * calls `answerError` directly; the admin app reaches it through
 * `createErrorHandler`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ErrorRequestHandler } from "express";
import type { DialectRenderer } from "../contract/provider-profile/render.ts";
import { StoreNotReplicatedError, StoreUnavailableError } from "../domain/ports.ts";
import { HttpProblem, isHttpProblem, toProblemBody } from "./http-problem.ts";
import { problemInstance, sendText } from "./request-context.ts";

interface ExpressError {
  readonly type?: unknown;
  readonly status?: unknown;
}

/** body-parser's error `type`s, and express' parameter decoding, as catalogue problems. */
function fromFrameworkError(error: unknown): HttpProblem | undefined {
  if (error instanceof StoreUnavailableError) {
    return new HttpProblem("store_unavailable", "The simulator's store (Redis) cannot be reached; retry shortly.");
  }
  if (error instanceof StoreNotReplicatedError) {
    return new HttpProblem("store_not_replicated", "No Redis replica acknowledged the write in time; retry shortly.");
  }
  if (error instanceof URIError) return new HttpProblem("not_found", "The path is not valid percent-encoded UTF-8.");
  if (typeof error !== "object" || error === null) return undefined;
  const { type, status } = error as ExpressError;
  switch (type) {
    case "entity.too.large":
      return new HttpProblem("payload_too_large", "The request body is larger than 64 KiB.");
    case "entity.parse.failed":
      return new HttpProblem("malformed_json", "The request body is not valid JSON (a JSON object is expected).");
    case "encoding.unsupported":
      return new HttpProblem("unsupported_media_type", "The Content-Encoding of the body is not supported.");
    case "charset.unsupported":
      return new HttpProblem("unsupported_media_type", "JSON bodies must be UTF-8.");
    case "request.aborted":
    case "request.size.invalid":
      return new HttpProblem("malformed_json", "The request body could not be read completely.");
    default:
      if (typeof status === "number" && status >= 400 && status < 500) {
        return new HttpProblem("malformed_json", "The request could not be read.");
      }
      return undefined;
  }
}

/** Answers a problem: as RFC 9457 problem+json (the admin API, our spec), or in a provider's dialect. */
export function sendProblem(res: ServerResponse, problem: HttpProblem, dialect?: DialectRenderer): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const headers = problem.headers;
  for (const name in headers) res.setHeader(name, headers[name] as string);
  const body = toProblemBody(problem, problemInstance(res));
  if (dialect === undefined) {
    sendText(res, problem.status, "application/problem+json; charset=utf-8", JSON.stringify(body));
    return;
  }
  const answer = dialect.error(body);
  sendText(res, answer.status, answer.contentType, JSON.stringify(answer.body));
}

/** Largest unread body discarded so that a 413 reaches a client that is still sending. */
const MAX_DRAIN_BYTES = 1024 * 1024;

function countDrained(this: IncomingMessage & { drained?: number }, chunk: Buffer): void {
  this.drained = (this.drained ?? 0) + chunk.length;
  if (this.drained > MAX_DRAIN_BYTES) this.socket.destroy();
}

function destroySocket(this: IncomingMessage): void {
  this.socket.destroy();
}

/**
 * The body reader stops at the limit; answering then would reset the
 * connection under a client still writing, which sees ECONNRESET instead of
 * the 413. Reading (and discarding) the rest, up to a cap, lets it see the 413.
 */
function afterUnreadBody(req: IncomingMessage, then: () => void): void {
  if (req.complete || req.readableEnded) {
    then();
    return;
  }
  req.on("data", countDrained);
  req.once("end", then);
  req.once("error", destroySocket);
  req.resume();
}

/** Answers any error: a problem as itself, a library error as its catalogue problem, a bug as a reported 500. */
export function answerError(
  error: unknown,
  req: IncomingMessage,
  res: ServerResponse,
  report: (error: unknown) => void,
  dialect?: DialectRenderer,
): void {
  const problem = isHttpProblem(error) ? error : fromFrameworkError(error);
  if (problem !== undefined) {
    if (problem.code === "payload_too_large") afterUnreadBody(req, () => sendProblem(res, problem, dialect));
    else sendProblem(res, problem, dialect);
    return;
  }
  report(error);
  sendProblem(res, new HttpProblem("internal_error", "The simulator failed unexpectedly; see its log."), dialect);
}

export function createErrorHandler(report: (error: unknown) => void): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => answerError(error, req, res, report);
}
