/**
 * The public API on node:http's request and response, with no framework: the
 * interface's three endpoints and the provider-like token endpoint. After the
 * entry (request id, journal, CORS) and the body, which every request shares
 * (`create-listener.ts`), one request reads top to bottom:
 *
 *   route (404, 405 with `Allow`) → auth → validation → idempotency key →
 *   scenario effects → domain → response,
 *
 * and every failure leaves through the one problem+json path
 * (`answerError`). The paths, methods and `Allow` lists are those declared
 * in `contract/routes/public-routes.ts` (the route table below matches them);
 * this file holds one handler per declared `operationId`: the order
 * (`place-order.ts`), its lookup, the balance and the provider-like token.
 * A handler throws the problem of any step that refuses, and the pipeline
 * answers it.
 */
import type { ServerResponse } from "node:http";
import { parse as parseQuery } from "node:querystring";
import { ShortcodeSchema, type TokenResponse } from "../contract/public-schemas.ts";
import { publicRoutes, REFERENCE_PARAMETER } from "../contract/routes/public-routes.ts";
import type { Customer } from "../domain/model.ts";
import { authenticateRequest, type RequestState, sendJson } from "./request-context.ts";
import { answerError } from "./error-handler.ts";
import { HttpProblem } from "./http-problem.ts";
import { allowedMethods, methodNotAllowedProblem } from "./method-not-allowed.ts";
import { createPlaceOrderHandler, type PlaceOrderDeps } from "./place-order.ts";
import { presentBalance, presentTransaction } from "./presenters.ts";
import type { RouteDeclaration } from "../contract/routes/route.ts";

// Routing derived from route declarations, with no framework: the paths,
// methods and `Allow` lists come from the declarations in
// `src/contract/routes/`, so a route is declared once and only its handler
// is added here. Matching is what the express router did before: exact
// case, one optional trailing slash, a `{name}` template segment matching
// one non-empty path segment, GET routes answering HEAD too.

/** A path the table knows: its template, its raw path parameters and what each method runs. */
export interface MatchedPath {
  readonly template: string;
  /** Path parameters by template name, still percent-encoded. */
  readonly params: Readonly<Record<string, string>>;
  /** The `operationId` each declared method (upper case) runs. */
  readonly operations: ReadonlyMap<string, string>;
  /** The `Allow` header's methods for this path. */
  readonly allow: readonly string[];
}

interface PathEntry {
  readonly template: string;
  readonly segments: readonly string[];
  readonly operations: Map<string, string>;
  allow: readonly string[];
}

export interface RouteTable {
  /** The path a URL path (without query) names, in declaration order; undefined for any other path. */
  match(path: string): MatchedPath | undefined;
  /** Every `operationId` declared, for checking that each has a handler. */
  readonly operationIds: readonly string[];
}

function parameterName(segment: string): string | undefined {
  return segment.startsWith("{") && segment.endsWith("}") ? segment.slice(1, -1) : undefined;
}

function matchSegments(template: readonly string[], path: readonly string[]): Record<string, string> | undefined {
  if (template.length !== path.length) return undefined;
  const params: Record<string, string> = {};
  // An indexed loop: `entries()` made an iterator and a pair per segment of every request.
  for (let index = 0; index < template.length; index++) {
    const expected = template[index] as string;
    const actual = path[index] as string;
    const name = parameterName(expected);
    if (name === undefined) {
      if (actual !== expected) return undefined;
    } else {
      if (actual === "") return undefined;
      params[name] = actual;
    }
  }
  return params;
}

function pathEntries(routes: readonly RouteDeclaration[]): PathEntry[] {
  const byTemplate = new Map<string, PathEntry>();
  for (const { method, path, operation } of routes) {
    if (operation.operationId === undefined) throw new Error(`${method} ${path} declares no operationId`);
    const entry = byTemplate.get(path) ?? {
      template: path,
      segments: path.split("/"),
      operations: new Map(),
      allow: [],
    };
    entry.operations.set(method.toUpperCase(), operation.operationId);
    byTemplate.set(path, entry);
  }
  const entries = [...byTemplate.values()];
  for (const entry of entries) entry.allow = allowedMethods([...entry.operations.keys()]);
  return entries;
}

/** @example createRouteTable(publicRoutes(limits)).match("/v1/airtime/abc")?.params.reference === "abc" */
export function createRouteTable(routes: readonly RouteDeclaration[]): RouteTable {
  const entries = pathEntries(routes);
  // A path without parameters is found in one map lookup, its match made once: `POST /v1/airtime` and
  // `GET /v1/balance` are most of the traffic. Only where the scan would find that entry first.
  const exact = new Map<string, MatchedPath>();
  entries.forEach((entry, at) => {
    if (entry.segments.some((segment) => parameterName(segment) !== undefined)) return;
    const shadowed = entries.slice(0, at).some((earlier) => matchSegments(earlier.segments, entry.segments));
    if (!shadowed) exact.set(entry.template, Object.freeze({ ...entry, params: Object.freeze({}) }));
  });
  return {
    operationIds: entries.flatMap((entry) => [...entry.operations.values()]),
    match(path) {
      // One optional trailing slash, as a non-strict express route takes.
      const bare = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
      const known = exact.get(bare);
      if (known !== undefined) return known;
      const segments = bare.split("/");
      for (const entry of entries) {
        const params = matchSegments(entry.segments, segments);
        if (params !== undefined) return { ...entry, params };
      }
      return undefined;
    },
  };
}

/** The operation a method runs on a matched path: HEAD runs the GET operation. */
export function operationFor(matched: MatchedPath, method: string | undefined): string | undefined {
  const asked = method ?? "GET";
  return matched.operations.get(asked) ?? (asked === "HEAD" ? matched.operations.get("GET") : undefined);
}

export interface PublicApiDeps extends PlaceOrderDeps {
  /** Checks HTTP Basic credentials and issues an expiring token, or undefined when they are wrong. */
  readonly issueToken: (customerId: string, apiKey: string) => Promise<TokenResponse | undefined>;
}

/** Runs one declared operation; `params` are the decoded path parameters. */
type OperationHandler = (
  state: RequestState,
  res: ServerResponse,
  params: Readonly<Record<string, string>>,
) => Promise<void>;

type Authenticate = (token: string) => Promise<Customer | undefined>;

function invalidClient(detail: string): HttpProblem {
  return new HttpProblem("invalid_client", detail, { headers: { "WWW-Authenticate": 'Basic realm="airtime"' } });
}

function basicCredentials(header: string | undefined): { id: string; secret: string } {
  const match = header === undefined ? null : /^Basic[ ]+([A-Za-z0-9+/=]+)[ ]*$/i.exec(header);
  if (match?.[1] === undefined) throw invalidClient("Send Authorization: Basic base64(customerId:apiKey).");
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon <= 0) throw invalidClient("The Basic credentials must be customerId:apiKey.");
  return { id: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

async function lookUp(
  deps: PublicApiDeps,
  authenticate: Authenticate,
  state: RequestState,
  res: ServerResponse,
  reference: string,
): Promise<void> {
  const customer = await authenticateRequest(state, authenticate);
  const valid = REFERENCE_PARAMETER.safeParse(reference);
  if (!valid.success) {
    // No order can carry a reference that breaks the rules: say why rather than only "not found".
    const errors = valid.error.issues.slice(0, 3).map((issue) => ({ pointer: "#/reference", detail: issue.message }));
    throw new HttpProblem("validation_failed", `The reference is not valid: ${errors[0]?.detail ?? "invalid"}.`, {
      errors,
    });
  }
  const found = await deps.service.findOrder(customer.id, reference);
  // Another customer's reference is indistinguishable from a missing one.
  if (found.kind === "not_found") throw new HttpProblem("not_found", "No order of yours has this reference.");
  if (found.kind === "evicted") {
    throw new HttpProblem(
      "order_evicted",
      `The order with this reference was evicted under the order cap; it ended with status ${found.evicted.status}.`,
    );
  }
  sendJson(res, 200, deps.dialect.lookup(presentTransaction(found.order)));
}

async function balance(
  deps: PublicApiDeps,
  authenticate: Authenticate,
  state: RequestState,
  res: ServerResponse,
): Promise<void> {
  const customer = await authenticateRequest(state, authenticate);
  const url = state.req.url ?? "";
  const query = url.indexOf("?");
  // querystring, as express' "simple" query parser: a repeated name gives an array.
  const shortcode = query < 0 ? undefined : parseQuery(url.slice(query + 1)).shortcode;
  if (shortcode !== undefined && typeof shortcode !== "string") {
    throw new HttpProblem("validation_failed", "Send one `shortcode` query parameter.", {
      errors: [{ pointer: "#/shortcode", detail: "must be a single string" }],
    });
  }
  // The same schema the document declares for the parameter: 1 to 32 well-formed characters.
  if (shortcode !== undefined && !ShortcodeSchema.safeParse(shortcode).success) {
    throw new HttpProblem(
      "validation_failed",
      "`shortcode` must be 1 to 32 characters; omit it for the default wallet.",
      {
        errors: [{ pointer: "#/shortcode", detail: "must be 1 to 32 well-formed characters" }],
      },
    );
  }
  const outcome = await deps.service.getBalance(customer.id, shortcode);
  switch (outcome.kind) {
    case "balance":
      sendJson(res, 200, deps.dialect.balance(presentBalance(outcome.wallet, outcome.wallets)));
      return;
    case "unknown_shortcode":
      throw new HttpProblem(
        "unknown_shortcode",
        `The shortcode ${JSON.stringify(outcome.shortcode)} is not one of your wallets.`,
      );
    default: {
      const unreachable: never = outcome;
      throw new Error(`unmapped balance outcome ${JSON.stringify(unreachable)}`);
    }
  }
}

async function token(deps: PublicApiDeps, state: RequestState, res: ServerResponse): Promise<void> {
  const { id, secret } = basicCredentials(state.req.headers.authorization);
  const issued = await deps.issueToken(id, secret);
  if (issued === undefined) throw invalidClient("Unknown customer id or wrong API key.");
  state.customerId = id;
  res.setHeader("Cache-Control", "no-store");
  sendJson(res, 200, issued);
}

/** The handler of each public `operationId`, built once at start-up. */
function createPublicOperations(deps: PublicApiDeps): Readonly<Record<string, OperationHandler>> {
  const authenticate: Authenticate = (bearer) => deps.service.authenticate(bearer);
  const placeOrder = createPlaceOrderHandler(deps);
  return {
    sendAirtime: async (state, res) => {
      await authenticateRequest(state, authenticate);
      await placeOrder(state, res);
    },
    getTransactionStatus: (state, res, params) => lookUp(deps, authenticate, state, res, params.reference as string),
    getBalance: (state, res) => balance(deps, authenticate, state, res),
    createToken: (state, res) => token(deps, state, res),
  };
}

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
