/**
 * What a newcomer's first request finds: `GET /` answers a small index of
 * what this simulator serves (a browser, asking for HTML, is sent to the
 * home page an admin extension names, the dashboard's, instead), and `GET /openapi.json` is the public API's document,
 * the committed `spec/openapi.yaml` as JSON (a served dialect's own document). Both are outside the public API
 * itself: `publicHandler`, mounted in another app, leaves them to that app.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { IncomingMessage, ServerResponse } from "node:http";
import { parse } from "yaml";
import type { AdminHome } from "../domain/plugin-port.ts";
import { dialectOpenApiDocument } from "../contract/openapi/dialect-document.ts";
import type { ProviderProfile } from "../contract/provider-profile/schema.ts";
import { PACKAGE_ROOT, packageVersion } from "../package-root.ts";
import { sendJson, sendText } from "./request-context.ts";

const OPENAPI_PATH = "/openapi.json";

/** The guides, as the package ships them. */
const DOCS = "README.md and docs/ in the airtime-harness package (docs/simulator.md first)";

export interface FrontDoorOptions {
  /** The page a browser is sent to, when an admin extension names one (the dashboard's `/_sim/ui`). */
  readonly home?: AdminHome | undefined;
  /** Whether `/_sim/…` serves the admin API. */
  readonly admin: boolean;
  /** The provider profile the public API speaks: `/openapi.json` is then that dialect's document. */
  readonly provider?: ProviderProfile | undefined;
}

export interface FrontDoor {
  /** Answers `GET /` and `GET /openapi.json`; false for any other request, left to the caller. */
  answer(req: IncomingMessage, res: ServerResponse, path: string): boolean;
}

function prefersHtml(req: IncomingMessage): boolean {
  const accept = req.headers.accept;
  return typeof accept === "string" && accept.includes("text/html");
}

export function createFrontDoor(options: FrontDoorOptions): FrontDoor {
  // Both read files, so on the first request for them: most simulators (tests, load runs) never serve them.
  let index: object | undefined;
  const indexBody = (): object =>
    (index ??= {
      name: "airtime-harness simulator",
      version: packageVersion(),
      endpoints: ["POST /v1/airtime", "GET /v1/airtime/{reference}", "GET /v1/balance", "POST /v1/auth/token"],
      openapi: OPENAPI_PATH,
      ...(options.home === undefined ? {} : { [options.home.name]: options.home.path }),
      ...(options.admin ? { admin: "/_sim/ (Authorization: Bearer <admin token>)" } : {}),
      docs: DOCS,
    });
  let openApiJson: string | undefined;
  const openApi = (): string =>
    (openApiJson ??=
      options.provider === undefined
        ? JSON.stringify(parse(readFileSync(join(PACKAGE_ROOT, "spec/openapi.yaml"), "utf8")))
        : JSON.stringify(dialectOpenApiDocument(options.provider)));

  return {
    answer(req, res, path) {
      if (req.method !== "GET" && req.method !== "HEAD") return false;
      if (path === "/") {
        const home = options.home;
        if (home !== undefined && prefersHtml(req)) {
          res.setHeader("Location", home.path);
          sendText(res, 302, "text/plain; charset=utf-8", `The ${home.name}: ${home.path}\n`);
        } else {
          sendJson(res, 200, indexBody());
        }
        return true;
      }
      if (path === OPENAPI_PATH) {
        sendText(res, 200, "application/json; charset=utf-8", openApi());
        return true;
      }
      return false;
    },
  };
}
