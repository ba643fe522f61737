/**
 * The one error type of the HTTP layer: a catalogue code plus what this
 * occurrence adds (detail, validation issues, headers). The error handler is
 * the only place that turns it into an RFC 9457 body.
 */
import { ERROR_CATALOGUE, type ErrorCode } from "../contract/error-codes.ts";
import type { Problem } from "../contract/public-schemas.ts";
import { PROBLEM_TYPE } from "../contract/routes/problems.ts";

export interface ValidationIssue {
  readonly pointer: string;
  readonly detail: string;
}

export interface HttpProblemOptions {
  readonly errors?: readonly ValidationIssue[];
  /** Extra response headers (`Allow`, `Retry-After`, `WWW-Authenticate`). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A problem's own option keeps its one default here, in the constructor's parameter list. */
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

export class HttpProblem extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly errors?: readonly ValidationIssue[];
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, detail: string, { errors, headers = NO_HEADERS }: HttpProblemOptions = {}) {
    super(`${code}: ${detail}`);
    this.name = "HttpProblem";
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.title = ERROR_CATALOGUE[code].title;
    this.detail = detail;
    if (errors !== undefined) this.errors = errors;
    this.headers = headers;
  }
}

export function isHttpProblem(value: unknown): value is HttpProblem {
  return value instanceof HttpProblem;
}

export function toProblemBody(problem: HttpProblem, instance: string): Problem {
  return {
    type: PROBLEM_TYPE,
    title: problem.title,
    status: problem.status,
    detail: problem.detail,
    instance,
    code: problem.code,
    ...(problem.errors === undefined ? {} : { errors: [...problem.errors] }),
  };
}
