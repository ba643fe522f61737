/**
 * The first stretch of every request as one middleware instead of one
 * express layer per step: request id and journal → CORS (when on) → 415 →
 * JSON body (413, 400) → structural check. Every step is the same function
 * the separate layers ran, in the same order, each failure leaving through
 * `next(error)` to the one error handler.
 *
 * `POST /v1/airtime` — the busiest route by far — is then handled right
 * here: its route is the first one of the public router, so the router
 * would reach it anyway; calling it directly saves walking the router for
 * the hot path. Any other request goes on to the routers.
 */
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { Clock } from "../domain/ports.ts";
import { contentTypeProblem, parseJsonBody, structureProblem } from "./body.ts";
import type { Journal } from "./journal.ts";
import { type RequestListener, startRequest } from "./request-context.ts";

export interface EntryPipelineDeps {
  readonly clock: Clock;
  readonly journal: Journal;
  /** Authenticates and places the order: the public router's `POST /v1/airtime` route. */
  readonly placeOrder: (req: Request, res: Response) => Promise<void>;
  /** Answers preflights and adds CORS headers; absent when CORS is off. */
  readonly cors?: RequestHandler;
  /** Told of every request once its response has ended (the request log). */
  readonly onRequest?: RequestListener;
}

/**
 * A URL the public router's `POST /v1/airtime` route matches for certain:
 * the exact path (that route is case-sensitive and takes one optional
 * trailing slash), with or without a query. Anything unusual is left to the
 * router, which decides as it always did.
 */
function isPlaceOrderUrl(url: string): boolean {
  return (
    url === "/v1/airtime" || url === "/v1/airtime/" || url.startsWith("/v1/airtime?") || url.startsWith("/v1/airtime/?")
  );
}

export function createEntryPipeline(deps: EntryPipelineDeps): RequestHandler {
  const start = startRequest(deps.clock, deps.journal, deps.onRequest);
  // As express does for a handler: a rejected promise goes to `next`, an empty rejection as an Error.
  const route = (req: Request, res: Response, next: NextFunction): void => {
    deps.placeOrder(req, res).catch((error: unknown) => next(error || new Error("Rejected promise")));
  };

  const afterBody = (req: Request, res: Response, next: NextFunction): void => {
    const problem = structureProblem(req.body);
    if (problem !== undefined) next(problem);
    else if (req.method === "POST" && isPlaceOrderUrl(req.url)) route(req, res, next);
    else next();
  };

  const body = (req: Request, res: Response, next: NextFunction): void => {
    const typeProblem = contentTypeProblem(req);
    if (typeProblem !== undefined) {
      next(typeProblem);
      return;
    }
    parseJsonBody(req, res, (error?: unknown) => {
      if (error) {
        next(error);
        return;
      }
      // This runs in the body parser's callback, outside express' try/catch: catch here what a layer would.
      try {
        afterBody(req, res, next);
      } catch (thrown) {
        next(thrown);
      }
    });
  };

  const { cors } = deps;
  if (cors === undefined) {
    return (req, res, next) => {
      start(req, res);
      body(req, res, next);
    };
  }
  return (req, res, next) => {
    start(req, res);
    // A preflight ends here (204); anything else goes on with its CORS headers set.
    cors(req, res, (error?: unknown) => (error ? next(error) : body(req, res, next)));
  };
}
