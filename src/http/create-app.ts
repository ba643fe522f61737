/**
 * The simulator's express app, one linear pipeline read top to bottom:
 * request id → journal → CORS → body limits (415, 413, 400) → route → auth →
 * validation → idempotency key → scenario effects → domain → response, with
 * every failure leaving through the one error handler as problem+json. The
 * steps up to the body are one layer (`entry-pipeline.ts`), which also runs
 * `POST /v1/airtime` itself.
 */
import express, { type Express } from "express";
import type { Clock } from "../domain/ports.ts";
import { type AdminApiDeps, createAdminRouter } from "./admin-routes.ts";
import { createCors } from "./cors.ts";
import { createEntryPipeline } from "./entry-pipeline.ts";
import { createErrorHandler } from "./error-handler.ts";
import { HttpProblem } from "./http-problem.ts";
import type { Journal } from "./journal.ts";
import { createPublicRoutes, type PublicApiDeps } from "./public-routes.ts";
import type { RequestListener } from "./request-context.ts";

export interface AppDeps {
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

export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable("x-powered-by");
  app.disable("etag");
  app.set("query parser", "simple");

  const publicRoutes = createPublicRoutes(deps.publicApi);
  const cors =
    deps.corsOrigins === undefined || deps.corsOrigins.length === 0 ? undefined : createCors(deps.corsOrigins);
  app.use(
    createEntryPipeline({
      clock: deps.clock,
      journal: deps.journal,
      placeOrder: publicRoutes.placeOrder,
      ...(cors === undefined ? {} : { cors }),
      ...(deps.onRequest === undefined ? {} : { onRequest: deps.onRequest }),
    }),
  );
  app.use(publicRoutes.router);
  if (deps.adminApi !== undefined) app.use("/_sim", createAdminRouter(deps.adminApi));

  app.use((req) => {
    throw new HttpProblem("not_found", `Nothing at ${req.method} ${req.path.slice(0, 200)}.`);
  });
  app.use(
    createErrorHandler(deps.reportError ?? ((error) => console.error("airtime simulator: unexpected error", error))),
  );
  return app;
}
