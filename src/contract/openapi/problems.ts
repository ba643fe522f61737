/**
 * problem+json responses from the error catalogue: one response per HTTP
 * status, one named example per `code` that status carries, each example
 * built from the catalogue's status and title so they can never disagree.
 */
import type { HeaderObject, ReferenceObject, ResponseObject } from "openapi3-ts/oas31";
import { ERROR_CATALOGUE, type ErrorCode } from "../error-codes.ts";
import { type Problem, ProblemSchema } from "../public-schemas.ts";
import { jsonContent, type NamedExamples } from "./content.ts";
import type { SchemaRegistry } from "./schema-registry.ts";

export const PROBLEM_MEDIA_TYPE = "application/problem+json";

/** RFC 9457's default: the `code` member, not the type URI, tells problems apart. */
export const PROBLEM_TYPE = "about:blank";

/** One way an operation fails with a problem body. */
export interface ProblemCase {
  readonly code: ErrorCode;
  /** When this happens, for the response description. */
  readonly when: string;
  /** The example body's `detail`. */
  readonly detail: string;
  readonly errors?: Problem["errors"];
  /** Example name; defaults to the code (needed when one code has two examples). */
  readonly name?: string;
}

export interface ProblemResponseOptions {
  /** The example bodies' `instance`: the request path. */
  readonly instance: string;
  /** Headers by HTTP status, e.g. `WWW-Authenticate` on 401. */
  readonly headers?: Readonly<Record<number, Readonly<Record<string, HeaderObject | ReferenceObject>>>>;
  /** A sentence put before the list of codes, by HTTP status (e.g. "Only when a scenario injects it."). */
  readonly notes?: Readonly<Record<number, string>>;
}

/**
 * The body the server sends for `code`.
 *
 * @example
 * problemExample("not_found", "No order with reference ORDER-1.", "/v1/airtime/ORDER-1");
 * // { type: "about:blank", title: "Not found", status: 404, detail: "…", instance: "…", code: "not_found" }
 */
export function problemExample(code: ErrorCode, detail: string, instance: string, errors?: Problem["errors"]): Problem {
  const { status, title } = ERROR_CATALOGUE[code];
  return { type: PROBLEM_TYPE, title, status, detail, instance, code, ...(errors === undefined ? {} : { errors }) };
}

/**
 * One problem+json response per HTTP status among `cases`, keyed by status.
 *
 * @example
 * responses: {
 *   "200": …,
 *   ...problemResponses(registry, [
 *     { code: "missing_token", when: "No Authorization header.", detail: "…" },
 *     { code: "not_found", when: "No such order.", detail: "…" },
 *   ], { instance: "/v1/airtime/ORDER-1" }),
 * }
 */
export function problemResponses(
  registry: SchemaRegistry,
  cases: readonly ProblemCase[],
  options: ProblemResponseOptions,
): Record<string, ResponseObject> {
  const byStatus = new Map<number, ProblemCase[]>();
  for (const problemCase of cases) {
    const status = ERROR_CATALOGUE[problemCase.code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), problemCase]);
  }
  const responses: Record<string, ResponseObject> = {};
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    responses[String(status)] = problemResponse(registry, status, byStatus.get(status) ?? [], options);
  }
  return responses;
}

/** The problem+json response for one HTTP status; every case must map to that status. */
export function problemResponse(
  registry: SchemaRegistry,
  status: number,
  cases: readonly ProblemCase[],
  options: ProblemResponseOptions,
): ResponseObject {
  const examples: Record<string, NamedExamples[string]> = {};
  for (const problemCase of cases) {
    const { status: codeStatus, title } = ERROR_CATALOGUE[problemCase.code];
    if (codeStatus !== status) throw new Error(`${problemCase.code} is a ${codeStatus}, not a ${status}`);
    const name = problemCase.name ?? problemCase.code;
    if (name in examples) throw new Error(`two ${status} examples are named "${name}"`);
    examples[name] = {
      summary: `${problemCase.code}: ${title}`,
      value: problemExample(problemCase.code, problemCase.detail, options.instance, problemCase.errors),
    };
  }
  const lines = cases
    .filter((c, index) => cases.findIndex((other) => other.code === c.code) === index)
    .map((c) => `- \`${c.code}\`: ${c.when}`);
  const note = options.notes?.[status];
  const headers = options.headers?.[status];
  return {
    description: [...(note === undefined ? [] : [note, ""]), ...lines].join("\n"),
    ...(headers === undefined ? {} : { headers: { ...headers } }),
    content: jsonContent(registry, ProblemSchema, examples, { io: "output", mediaType: PROBLEM_MEDIA_TYPE }),
  };
}
