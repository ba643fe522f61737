/**
 * The admin API's express app, behind the one listener (`create-listener.ts`),
 * which has already run the entry and body steps: `req.body` is parsed.
 * Express earns its place here (many routes, plugins registering their own);
 * failures leave through the same problem+json path as the public API's.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import express, { type Express } from "express";
import { type AdminApiDeps, createAdminRouter } from "./admin-routes.ts";
import { createErrorHandler } from "./error-handler.ts";
import { HttpProblem } from "./http-problem.ts";

function createAdminApp(router: express.Router, report: (error: unknown) => void): Express {
  const app = express();
  app.disable("x-powered-by");
  app.disable("etag");
  app.set("query parser", "simple");
  app.use("/_sim", router);
  app.use((req) => {
    throw new HttpProblem("not_found", `Nothing at ${req.method} ${req.path.slice(0, 200)}.`);
  });
  app.use(createErrorHandler(report));
  return app;
}

/** An object with `methods`' own properties whose prototype is `parent`. */
function inheritFrom(methods: object, parent: object): object {
  return Object.create(parent, Object.getOwnPropertyDescriptors(methods)) as object;
}

/**
 * Express re-parents each request and response onto its own prototypes,
 * which inherit from node:http's. A response of another class (an in-process
 * injection's, which captures what is written) would lose its own `write`
 * and `end`: such a request gets an app whose prototypes inherit from that
 * class instead. One app per pair of classes, made on first sight.
 */
export function createAdminHandler(
  adminApi: AdminApiDeps,
  report: (error: unknown) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  const router = createAdminRouter(adminApi);
  const apps = new Map<object, Map<object, Express>>();
  const appFor = (req: IncomingMessage, res: ServerResponse): Express => {
    const reqClass = Object.getPrototypeOf(req) as object;
    const resClass = Object.getPrototypeOf(res) as object;
    let byResponse = apps.get(reqClass);
    if (byResponse === undefined) apps.set(reqClass, (byResponse = new Map()));
    let app = byResponse.get(resClass);
    if (app === undefined) {
      app = createAdminApp(router, report);
      Object.setPrototypeOf(app.request, inheritFrom(express.request, reqClass));
      Object.setPrototypeOf(app.response, inheritFrom(express.response, resClass));
      byResponse.set(resClass, app);
    }
    return app;
  };
  return (req, res) => {
    appFor(req, res)(req, res);
  };
}
