/**
 * The simulator's one request listener. Every request takes the same entry:
 * request id and journal → CORS (when on) → body (415, 413, 400). Then it is
 * dispatched by path prefix: `/_sim` to the admin API's express app, anything
 * else to the framework-free public pipeline (`public-pipeline.ts`), which
 * answers 404 for a path it does not know.
 *
 * The same public pipeline is also offered as middleware for a user's own
 * express (or connect) app: it answers the public API's paths and hands any
 * other request to `next`.
 */
import type { IncomingMessage, RequestListener as NodeRequestListener, ServerResponse } from "node:http";
import type { RequestHandler } from "express";
import type { Clock } from "../domain/ports.ts";
import { createAdminHandler } from "./admin-app.ts";
import type { AdminApiDeps } from "./admin-routes.ts";
import { type BodyCallback, readBody } from "./body.ts";
import { createCors } from "./cors.ts";
import { answerError } from "./error-handler.ts";
import { createFrontDoor } from "./front-door.ts";
import type { Journal } from "./journal.ts";
import { createPublicPipeline, type PublicApiDeps } from "./public-pipeline.ts";
import {
  type RequestListener,
  type RequestRecorder,
  requestState,
  setRequestIdHeader,
  startRequest,
} from "./request-context.ts";

export interface HttpDeps {
  readonly clock: Clock;
  readonly journal: Journal;
  readonly publicApi: PublicApiDeps;
  /** Absent: no admin API, `/_sim/…` is 404 like any unknown path. */
  readonly adminApi?: AdminApiDeps | undefined;
  /** Where unexpected errors (bugs) are reported; defaults to stderr. */
  readonly reportError?: (error: unknown) => void;
  /** Origins a browser app may call from (`*`: any); CORS is off when absent or empty. */
  readonly corsOrigins?: readonly string[];
  /** Told of every request once its response has ended (the request log). */
  readonly onRequest?: RequestListener;
}

/** Connect-style middleware, as `app.use(handler)` takes it. */
export type PublicHandler = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

export interface HttpListeners {
  /** The public API here, `/_sim` to the admin app. */
  readonly requestListener: NodeRequestListener;
  /** The public API alone, for mounting into another app. */
  readonly publicHandler: PublicHandler;
}

interface AdminRequest extends IncomingMessage {
  body?: unknown;
}

/** The path of a request target, without its query. */
function pathOf(url: string): string {
  const query = url.indexOf("?");
  return query < 0 ? url : url.slice(0, query);
}

function isAdminPath(path: string): boolean {
  return path.startsWith("/_sim") && (path.length === 5 || path.charCodeAt(5) === 47); /* "/" */
}

export function createHttpListeners(deps: HttpDeps): HttpListeners {
  const report = deps.reportError ?? ((error) => console.error("airtime simulator: unexpected error", error));
  const recorder: RequestRecorder = { clock: deps.clock, journal: deps.journal, onRequest: deps.onRequest };
  const publicPipeline = createPublicPipeline(deps.publicApi, report);
  const adminApp = deps.adminApi === undefined ? undefined : createAdminHandler(deps.adminApi, report);
  const frontDoor = createFrontDoor({
    admin: deps.adminApi !== undefined,
    provider: deps.publicApi.dialect.source,
    home: deps.adminApi?.extensions.find((extension) => extension.home !== undefined)?.home,
  });
  const cors =
    deps.corsOrigins === undefined || deps.corsOrigins.length === 0 ? undefined : createCors(deps.corsOrigins);

  // Made once, not per request: the body step calls back into it with the request and the response.
  const afterBody: BodyCallback = (req, res, body, problem) => {
    // `url` rather than the state's: mounted in another app, the mount prefix is not part of the route.
    const path = pathOf(req.url ?? "/");
    if (problem !== undefined) {
      // The admin API always speaks our spec; the public API the provider's dialect.
      answerError(problem, req, res, report, isAdminPath(path) ? undefined : deps.publicApi.dialect);
      return;
    }
    if (adminApp !== undefined && isAdminPath(path)) {
      (req as AdminRequest).body = body;
      setRequestIdHeader(res);
      adminApp(req, res);
      return;
    }
    if (frontDoor.answer(req, res, path)) return;
    const state = requestState(res);
    state.body = body;
    void publicPipeline.handle(state, res, path);
  };

  const enter = (req: IncomingMessage, res: ServerResponse): void => {
    readBody(req, res, pathOf(req.url ?? "/"), afterBody);
  };

  const begin = (req: IncomingMessage, res: ServerResponse, url: string): void => {
    startRequest(req, res, url, recorder);
    if (cors === undefined) {
      enter(req, res);
      return;
    }
    // A preflight from a listed origin ends here (204); anything else goes on with its CORS headers set.
    setRequestIdHeader(res);
    cors(req as Parameters<RequestHandler>[0], res as Parameters<RequestHandler>[1], (error?: unknown) => {
      if (error) answerError(error, req, res, report);
      else enter(req, res);
    });
  };

  return {
    requestListener: (req, res) => begin(req, res, req.url ?? "/"),
    publicHandler: (req, res, next) => {
      if (publicPipeline.match(pathOf(req.url ?? "/")) === undefined) {
        next();
        return;
      }
      // Mounted under a prefix, the app has stripped it from `url`; the journal keeps the URL as sent.
      begin(req, res, (req as { originalUrl?: string }).originalUrl ?? req.url ?? "/");
    },
  };
}
