/**
 * problem+json responses from the error catalogue: one response per HTTP
 * status, one named example per `code` that status carries, each example
 * built from the catalogue's status and title so they can never disagree.
 */
import type { ZodOpenApiResponseObject } from "zod-openapi";
import { ERROR_CATALOGUE, type ErrorCode } from "../error-codes.ts";
import { type Problem, ProblemSchema } from "../public-schemas.ts";
import type { NamedExample } from "./route.ts";

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
}

type ResponseHeaders = NonNullable<ZodOpenApiResponseObject["headers"]>;

export interface ProblemResponseOptions {
  /** The example bodies' `instance`: the request path. */
  readonly instance: string;
  /** Headers by HTTP status, e.g. `WWW-Authenticate` on 401. */
  readonly headers?: Readonly<Record<number, ResponseHeaders>>;
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
function problemExample(code: ErrorCode, detail: string, instance: string, errors?: Problem["errors"]): Problem {
  const { status, title } = ERROR_CATALOGUE[code];
  return { type: PROBLEM_TYPE, title, status, detail, instance, code, ...(errors === undefined ? {} : { errors }) };
}

/**
 * One problem+json response per HTTP status among `cases`, keyed by status.
 *
 * @example
 * responses: {
 *   "200": …,
 *   ...problemResponses([{ code: "not_found", when: "No such order.", detail: "…" }], { instance: "/v1/airtime/ORDER-1" }),
 * }
 */
export function problemResponses(
  cases: readonly ProblemCase[],
  options: ProblemResponseOptions,
): Record<`${number}`, ZodOpenApiResponseObject> {
  const byStatus = new Map<number, ProblemCase[]>();
  for (const problemCase of cases) {
    const status = ERROR_CATALOGUE[problemCase.code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), problemCase]);
  }
  const responses: Record<`${number}`, ZodOpenApiResponseObject> = {};
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    const statusCases = byStatus.get(status) ?? [];
    const examples: Record<string, NamedExample> = {};
    for (const { code, detail, errors } of statusCases) {
      if (code in examples) throw new Error(`two ${status} examples for ${code}`);
      examples[code] = {
        summary: `${code}: ${ERROR_CATALOGUE[code].title}`,
        value: problemExample(code, detail, options.instance, errors),
      };
    }
    const lines = statusCases.map((c) => `- \`${c.code}\`: ${c.when}`);
    const note = options.notes?.[status];
    const headers = options.headers?.[status];
    responses[`${status}`] = {
      description: [...(note === undefined ? [] : [note, ""]), ...lines].join("\n"),
      ...(headers === undefined ? {} : { headers }),
      content: { [PROBLEM_MEDIA_TYPE]: { schema: ProblemSchema, examples } },
    };
  }
  return responses;
}
