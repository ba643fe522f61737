/**
 * Response conformance, asserted on every response the harness receives, in
 * a fixed order so each defect is named by the most specific check: a 5xx is
 * `never_server_error`; an undocumented status is `status_code_conformance`;
 * a wrong media type is `content_type_conformance`; a body that does not
 * match the endpoint's schema is `response_schema_conformance`. Behavioural
 * checks (replay, lookup …) run only after a response has passed these.
 */
import type { z } from "zod";
import { ERROR_CATALOGUE, isErrorCode } from "../contract/error-codes.ts";
import { type CompiledProfile, compileProfile } from "../contract/provider-profile/compile.ts";
import { DEFAULT_ORDER_LIMITS } from "../contract/public-schemas.ts";
import { publicRoutes } from "../contract/routes/public-routes.ts";
import type { RouteDeclaration } from "../contract/routes/route.ts";
import type { Checker } from "./checker.ts";
import type { HttpResponse } from "./http-client.ts";
import type { Strictness } from "./strictness.ts";
import type { Endpoint, TargetSpec } from "./target-spec.ts";

import {
  StrictBalanceResponse,
  StrictFailedOrderResponse,
  StrictProblem,
  StrictSendAirtimeResponse,
  StrictTransactionStatusResponse,
} from "./strict-schemas.ts";

/**
 * The HTTP statuses our spec documents per operation, read from the route
 * declarations that generate `spec/openapi.yaml` — one source, so what
 * `strict` judges is exactly what the document lists. 5xx are left out:
 * they are never_server_error's to judge.
 */

/** Where each judged endpoint is declared. */
const OPERATIONS: Readonly<Record<Exclude<Endpoint, "other">, { method: string; path: string }>> = {
  send_airtime: { method: "post", path: "/v1/airtime" },
  lookup: { method: "get", path: "/v1/airtime/{reference}" },
  balance: { method: "get", path: "/v1/balance" },
};

/**
 * A request no route takes (a wrong method, an unknown path) or one refused
 * before any route runs: the application's own answers, which no operation
 * of the document declares.
 */
const UNROUTED_STATUSES: readonly number[] = [400, 401, 404, 405, 413, 415];

function declaredStatuses(routes: readonly RouteDeclaration[], method: string, path: string): number[] {
  const route = routes.find((r) => r.method === method && r.path === path);
  if (route === undefined) throw new Error(`no route declares ${method.toUpperCase()} ${path}`);
  return Object.keys(route.operation.responses)
    .map(Number)
    .filter((status) => Number.isInteger(status) && status < 500)
    .sort((a, b) => a - b);
}

function documentedStatuses(): Readonly<Record<Endpoint, readonly number[]>> {
  const routes = publicRoutes(DEFAULT_ORDER_LIMITS);
  return {
    send_airtime: declaredStatuses(routes, OPERATIONS.send_airtime.method, OPERATIONS.send_airtime.path),
    lookup: declaredStatuses(routes, OPERATIONS.lookup.method, OPERATIONS.lookup.path),
    balance: declaredStatuses(routes, OPERATIONS.balance.method, OPERATIONS.balance.path),
    other: UNROUTED_STATUSES,
  };
}

/** The statuses per endpoint that `strict` accepts (5xx never: see never_server_error). */
const DOCUMENTED_STATUSES = documentedStatuses();

const SPEC_PROFILE = compileProfile();

/** The schema of a success-class body per endpoint (strict: unknown fields rejected); other 4xx bodies are problems. */
const BODY_SCHEMAS: Readonly<Record<Endpoint, Readonly<Record<number, z.ZodType>>>> = {
  send_airtime: { 200: StrictSendAirtimeResponse, 402: StrictFailedOrderResponse },
  lookup: { 200: StrictTransactionStatusResponse },
  balance: { 200: StrictBalanceResponse },
  other: {},
};

export interface ConformanceOptions {
  /** Prism sits between the harness and the target: its violations are schema failures. */
  readonly prism?: boolean;
  /** `interface`: only what the interface document states (default strict: everything our spec decides). */
  readonly profile?: Strictness;
  /** Where bodies keep what is judged (default our spec). */
  readonly provider?: CompiledProfile;
  /** `--spec`: bodies are judged against the target's own OpenAPI document instead. */
  readonly targetSpec?: TargetSpec;
}

/**
 * Asserts the conformance checks on one response.
 *
 * @example
 * assertConformance(checker, "lookup", response); // throws CheckFailure on the first violation
 */
export function assertConformance(
  checker: Checker,
  endpoint: Endpoint,
  response: HttpResponse,
  { prism = false, profile = "strict", provider = SPEC_PROFILE, targetSpec }: ConformanceOptions = {},
): void {
  if (prism) assertNoPrismViolation(checker, response);
  checker.that(
    "never_server_error",
    response.status < 500,
    () => `${endpoint}: HTTP ${response.status} ${snippet(response.text)}`,
  );
  // A 5xx is never_server_error's alone: its status, media type and body are not judged again.
  if (response.status >= 500) return;
  if (profile === "interface") {
    if (targetSpec === undefined) {
      assertInterfaceShape(checker, endpoint, response, provider);
    } else {
      assertTargetSpecShape(checker, endpoint, response, targetSpec);
    }
    return;
  }
  checker.that(
    "status_code_conformance",
    DOCUMENTED_STATUSES[endpoint].includes(response.status),
    () =>
      `${endpoint}: HTTP ${response.status} is not a documented status (documented: ${DOCUMENTED_STATUSES[endpoint].join(", ")})`,
  );
  const schema = BODY_SCHEMAS[endpoint][response.status];
  const problem = schema === undefined && response.status >= 400;
  const mediaType = (response.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  const expectedType = problem ? "application/problem+json" : "application/json";
  checker.that(
    "content_type_conformance",
    mediaType === expectedType,
    () => `${endpoint}: HTTP ${response.status} came as '${mediaType || "(none)"}', expected ${expectedType}`,
  );
  if (targetSpec !== undefined) {
    assertTargetSpecShape(checker, endpoint, response, targetSpec);
    return;
  }
  const bodySchema = schema ?? (problem ? StrictProblem : undefined);
  if (bodySchema === undefined) return;
  const parsed = bodySchema.safeParse(response.json);
  checker.that(
    "response_schema_conformance",
    parsed.success,
    () =>
      `${endpoint}: HTTP ${response.status} body does not match its schema: ${describeIssues(parsed.error)} — ${snippet(response.text)}`,
  );
  if (problem) assertProblemStatus(checker, endpoint, response);
}

/** The body against the target's own document, where it has a schema for this answer. */
function assertTargetSpecShape(checker: Checker, endpoint: Endpoint, response: HttpResponse, spec: TargetSpec): void {
  const problems = spec.problems(endpoint, response.status, response.json);
  if (problems === undefined) return;
  checker.that(
    "response_schema_conformance",
    problems.length === 0,
    () =>
      `${endpoint}: HTTP ${response.status} body does not match ${spec.file}: ${problems.join("; ")} — ${snippet(response.text)}`,
  );
}

/**
 * The interface states only the send-airtime answer (§2.3): a string
 * reference, a numeric status and a string id — absent on a failed order
 * (§7). Every other body, status and media type is "not shown".
 */
function assertInterfaceShape(
  checker: Checker,
  endpoint: Endpoint,
  response: HttpResponse,
  provider: CompiledProfile,
): void {
  if (endpoint !== "send_airtime" || response.status < 200 || response.status >= 300) return;
  const raw = {
    id: provider.readField("order", "id", response.json),
    reference: provider.readField("order", "reference", response.json),
  };
  const problems = [
    typeof raw.reference === "string"
      ? undefined
      : `reference at ${provider.pointer("order", "reference")} is not a string`,
    provider.readOrder("order", response.json).status !== undefined
      ? undefined
      : `status at ${provider.pointer("order", "status")} is not a number`,
    raw.id === undefined || (typeof raw.id === "string" && raw.id !== "")
      ? undefined
      : `id at ${provider.pointer("order", "id")} is not a string`,
  ].filter((problem): problem is string => problem !== undefined);
  checker.that(
    "response_schema_conformance",
    problems.length === 0,
    () => `${endpoint}: HTTP ${response.status}: ${problems.join("; ")} (§2.3) — ${snippet(response.text)}`,
  );
}

/** A problem's `status` repeats the HTTP status, and its `code` is catalogued with that status. */
function assertProblemStatus(checker: Checker, endpoint: Endpoint, response: HttpResponse): void {
  const body = response.json as { status?: unknown; code?: unknown };
  checker.that(
    "status_code_conformance",
    body.status === response.status,
    () => `${endpoint}: problem body says status ${String(body.status)} but the HTTP status is ${response.status}`,
  );
  const code = typeof body.code === "string" ? body.code : "";
  checker.that(
    "status_code_conformance",
    isErrorCode(code) && ERROR_CATALOGUE[code].status === response.status,
    () =>
      `${endpoint}: code '${code}' is catalogued with HTTP ${isErrorCode(code) ? ERROR_CATALOGUE[code].status : "?"}, answered with ${response.status}`,
  );
}

function assertNoPrismViolation(checker: Checker, response: HttpResponse): void {
  const violations = response.headers["sl-violations"];
  const body = response.json as { type?: unknown; validation?: unknown } | undefined;
  const prismError = typeof body?.type === "string" && body.type.includes("stoplight.io/prism/errors");
  const responseViolations = parseViolations(violations).filter((v) => v.location[0] === "response");
  const message =
    responseViolations.length > 0
      ? responseViolations.map((v) => `${v.location.join(".")}: ${v.message}`).join("; ")
      : prismError
        ? `Prism: ${response.text.slice(0, 400)}`
        : "";
  checker.that("response_schema_conformance", message === "", () => `Prism reports a violation: ${message}`);
}

interface PrismViolation {
  readonly location: readonly string[];
  readonly message: string;
}

function parseViolations(header: string | undefined): PrismViolation[] {
  if (header === undefined) return [];
  try {
    const parsed: unknown = JSON.parse(header);
    if (!Array.isArray(parsed)) return [];
    return parsed.map((entry: { location?: unknown; message?: unknown }) => ({
      location: Array.isArray(entry.location) ? entry.location.map(String) : [],
      message: String(entry.message ?? ""),
    }));
  } catch {
    return [{ location: ["response"], message: header.slice(0, 300) }];
  }
}

function describeIssues(error: z.ZodError | undefined): string {
  if (error === undefined) return "";
  return error.issues
    .slice(0, 4)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(body)"}: ${issue.message}`)
    .join("; ");
}

/** The first characters of a body, for messages. */
function snippet(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
