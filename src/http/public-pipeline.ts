/**
 * The public API on node:http's request and response, with no framework: the
 * interface's three endpoints and the provider-like token endpoint. After the
 * entry (request id, journal, CORS) and the body (`body.ts`), which every
 * request shares, one request reads top to bottom:
 *
 *   route (404, 405 with `Allow`) → auth → validation → idempotency key →
 *   scenario effects → domain → response,
 *
 * and every failure leaves through the one problem+json path
 * (`answerError`). The paths, methods and `Allow` lists are those declared
 * in `contract/routes/public-routes.ts` (`route-table.ts` matches them);
 * `public-operations.ts` holds one handler per declared `operationId`.
 */
import type { ServerResponse } from "node:http";
import { publicRoutes } from "../contract/routes/public-routes.ts";
import { answerError } from "./error-handler.ts";
import { HttpProblem } from "./http-problem.ts";
import { methodNotAllowedProblem } from "./method-not-allowed.ts";
import { createPublicOperations, type PublicApiDeps } from "./public-operations.ts";
import type { RequestState } from "./request-context.ts";
import { createRouteTable, type MatchedPath, operationFor } from "./route-table.ts";

function notFound(state: RequestState, path: string): HttpProblem {
  return new HttpProblem(
    "not_found",
    `Nothing at ${state.req.method ?? "GET"} ${path.slice(0, 200)}. GET / lists what this simulator serves.`,
  );
}

function decodeReference(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpProblem("not_found", "The path is not valid percent-encoded UTF-8.");
  }
}

export interface PublicPipeline {
  /** The public path a URL path (without query) names, or undefined for any other path. */
  match(path: string): MatchedPath | undefined;
  /**
   * Answers a request whose entry and body steps have run (`state.body` is
   * set): a public route, or 404 for any path that is none. Never rejects:
   * every failure is answered as problem+json.
   */
  handle(state: RequestState, res: ServerResponse, path: string): Promise<void>;
}

function decodeParams(params: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  const names = Object.keys(params);
  // Most requests name no parameter (POST /v1/airtime, GET /v1/balance): nothing to build.
  if (names.length === 0) return params;
  return Object.fromEntries(names.map((name) => [name, decodeReference(params[name] as string)]));
}

export function createPublicPipeline(deps: PublicApiDeps, report: (error: unknown) => void): PublicPipeline {
  const handlers = createPublicOperations(deps);
  const table = createRouteTable(publicRoutes(deps.limits));
  // A declared route without a handler would answer 405 forever: refuse to start instead.
  const unhandled = table.operationIds.filter((id) => handlers[id] === undefined);
  if (unhandled.length > 0) throw new Error(`public operations without a handler: ${unhandled.join(", ")}`);

  /** Route → method → the route's steps; throws the problem of any step that refuses. */
  async function route(state: RequestState, res: ServerResponse, path: string): Promise<void> {
    const matched = table.match(path);
    if (matched === undefined) throw notFound(state, path);
    // Decoded before the method is looked at, as a router decodes a path parameter on matching.
    const params = decodeParams(matched.params);
    const operation = operationFor(matched, state.req.method);
    const handler = operation === undefined ? undefined : handlers[operation];
    if (handler === undefined) throw methodNotAllowedProblem(state.req.method, matched.allow);
    await handler(state, res, params);
  }

  return {
    match: (path) => table.match(path),
    async handle(state, res, path) {
      try {
        await route(state, res, path);
      } catch (error) {
        answerError(error, state.req, res, report, deps.dialect);
      }
    },
  };
}
