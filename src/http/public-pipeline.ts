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
 * (`answerError`). Routing is what the express router did before: exact
 * case, one optional trailing slash, the reference decoded as a path
 * parameter, GET routes answering HEAD too.
 */
import type { ServerResponse } from "node:http";
import { parse as parseQuery } from "node:querystring";
import type { TokenResponse } from "../contract/public-schemas.ts";
import { REFERENCE_PARAMETER } from "../contract/routes/public-routes.ts";
import { authenticateRequest } from "./auth.ts";
import { answerError } from "./error-handler.ts";
import { HttpProblem } from "./http-problem.ts";
import { sendJson } from "./json-response.ts";
import { allowedMethods, methodNotAllowedProblem } from "./method-not-allowed.ts";
import { createPlaceOrderHandler, type PlaceOrderDeps } from "./place-order.ts";
import { presentBalance, presentTransaction } from "./presenters.ts";
import type { RequestState } from "./request-context.ts";

export interface PublicApiDeps extends PlaceOrderDeps {
  /** Checks HTTP Basic credentials and issues an expiring token, or undefined when they are wrong. */
  readonly issueToken: (customerId: string, apiKey: string) => Promise<TokenResponse | undefined>;
}

/** The public routes, by what a path names. */
type Route = "place-order" | "lookup" | "balance" | "token";

const ORDERS = "/v1/airtime";
const ORDERS_PREFIX = "/v1/airtime/";

function isExactly(path: string, route: string): boolean {
  // One optional trailing slash, as a non-strict express route takes.
  return path === route || (path.length === route.length + 1 && path.endsWith("/") && path.startsWith(route));
}

/** The route a URL path names (case-sensitive); undefined for any other path. */
export function routeOf(path: string): Route | undefined {
  if (isExactly(path, ORDERS)) return "place-order";
  if (path.startsWith(ORDERS_PREFIX)) return referenceSegment(path) === undefined ? undefined : "lookup";
  if (isExactly(path, "/v1/balance")) return "balance";
  if (isExactly(path, "/v1/auth/token")) return "token";
  return undefined;
}

/** The raw `{reference}` segment of `/v1/airtime/{reference}[/]`, or undefined. */
function referenceSegment(path: string): string | undefined {
  const end = path.endsWith("/") ? path.length - 1 : path.length;
  const segment = path.slice(ORDERS_PREFIX.length, end);
  return segment === "" || segment.includes("/") ? undefined : segment;
}

const PLACE_ORDER_ALLOW = allowedMethods(["POST"]);
const TOKEN_ALLOW = allowedMethods(["POST"]);
const LOOKUP_ALLOW = allowedMethods(["GET"]);
const BALANCE_ALLOW = allowedMethods(["GET"]);

function isGet(method: string | undefined): boolean {
  return method === "GET" || method === "HEAD";
}

function notFound(state: RequestState, path: string): HttpProblem {
  return new HttpProblem(
    "not_found",
    `Nothing at ${state.req.method ?? "GET"} ${path.slice(0, 200)}. GET / lists what this simulator serves.`,
  );
}

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

function decodeReference(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpProblem("not_found", "The path is not valid percent-encoded UTF-8.");
  }
}

export interface PublicPipeline {
  /**
   * Answers a request whose entry and body steps have run (`state.body` is
   * set): a public route, or 404 for any path that is none. Never rejects:
   * every failure is answered as problem+json.
   */
  handle(state: RequestState, res: ServerResponse, path: string): Promise<void>;
}

export function createPublicPipeline(deps: PublicApiDeps, report: (error: unknown) => void): PublicPipeline {
  const authenticate = (token: string) => deps.service.authenticate(token);
  const placeOrder = createPlaceOrderHandler(deps);

  async function lookUp(state: RequestState, res: ServerResponse, reference: string): Promise<void> {
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

  async function balance(state: RequestState, res: ServerResponse): Promise<void> {
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
    const outcome = await deps.service.getBalance(customer.id, shortcode === "" ? undefined : shortcode);
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

  async function token(state: RequestState, res: ServerResponse): Promise<void> {
    const { id, secret } = basicCredentials(state.req.headers.authorization);
    const issued = await deps.issueToken(id, secret);
    if (issued === undefined) throw invalidClient("Unknown customer id or wrong API key.");
    state.customerId = id;
    res.setHeader("Cache-Control", "no-store");
    sendJson(res, 200, issued);
  }

  /** Route → method → the route's steps; throws the problem of any step that refuses. */
  async function route(state: RequestState, res: ServerResponse, path: string): Promise<void> {
    const method = state.req.method;
    switch (routeOf(path)) {
      case "place-order":
        if (method !== "POST") throw methodNotAllowedProblem(method, PLACE_ORDER_ALLOW);
        await authenticateRequest(state, authenticate);
        await placeOrder(state, res);
        return;
      case "lookup": {
        // Decoded before the method is looked at, as a router decodes a path parameter on matching.
        const reference = decodeReference(referenceSegment(path) as string);
        if (!isGet(method)) throw methodNotAllowedProblem(method, LOOKUP_ALLOW);
        await lookUp(state, res, reference);
        return;
      }
      case "balance":
        if (!isGet(method)) throw methodNotAllowedProblem(method, BALANCE_ALLOW);
        await balance(state, res);
        return;
      case "token":
        if (method !== "POST") throw methodNotAllowedProblem(method, TOKEN_ALLOW);
        await token(state, res);
        return;
      case undefined:
        throw notFound(state, path);
    }
  }

  return {
    async handle(state, res, path) {
      try {
        await route(state, res, path);
      } catch (error) {
        answerError(error, state.req, res, report, deps.dialect);
      }
    },
  };
}
