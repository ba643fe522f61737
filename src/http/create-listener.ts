/**
 * The simulator's one request listener. Every request takes the same entry:
 * request id and journal → CORS (when on) → body (415, 413, 400). Then it is
 * dispatched: `/_sim` to the admin API's express app, `GET /` and
 * `GET /openapi.json` to the front door, anything else to the
 * framework-free public pipeline (`public-pipeline.ts`), which answers 404
 * for a path it does not know.
 *
 * The same public pipeline is also offered as middleware for a user's own
 * express (or connect) app: it answers the public API's paths and hands any
 * other request to `next`.
 */
import { readFileSync } from "node:fs";
import type { IncomingMessage, RequestListener as NodeRequestListener, ServerResponse } from "node:http";
import { join } from "node:path";
import { MIMEType } from "node:util";
import express, { type Request, type RequestHandler, type Response } from "express";
import typeIs from "type-is";
import { parse } from "yaml";
import { dialectOpenApiDocument } from "../contract/openapi/dialect-document.ts";
import type { ProviderProfile } from "../contract/provider-profile/schema.ts";
import type { AdminHome } from "../domain/plugin-port.ts";
import type { Clock } from "../domain/ports.ts";
import { PACKAGE_ROOT, packageVersion } from "../package-root.ts";
import { createAdminHandler } from "./admin-app.ts";
import type { AdminApiDeps } from "./admin-routes.ts";
import { answerError } from "./error-handler.ts";
import { HttpProblem } from "./http-problem.ts";
import type { Journal } from "./journal.ts";
import { createPublicPipeline, type PublicApiDeps } from "./public-pipeline.ts";
import {
  type RequestListener,
  type RequestRecorder,
  requestState,
  sendJson,
  sendText,
  setRequestIdHeader,
  startRequest,
} from "./request-context.ts";
import cors from "cors";

// CORS for a browser app in development, off unless origins are given: a
// preflight from a listed origin is answered 204 with the methods and
// headers the API takes (`Authorization`, `Idempotency-Key`…), and every
// answer to it exposes `Idempotent-Replayed`. Any other origin gets no CORS
// header at all, and its `OPTIONS` goes on to the routers (405), as it
// does with CORS off.

/** `*` or an origin as a browser sends it: scheme, host and an optional port, no path. */
export const CORS_ORIGIN_PATTERN = /^(\*|https?:\/\/[^/\s?#]+)$/;

const CORS_ALLOWED_HEADERS = ["Authorization", "Content-Type", "Idempotency-Key", "X-Sim-Scenario"] as const;
const CORS_EXPOSED_HEADERS = ["Idempotent-Replayed", "Retry-After", "X-Request-Id"] as const;

function createCors(origins: readonly string[]): RequestHandler {
  const any = origins.includes("*");
  const listed = new Set(origins);
  return cors({
    // `false` makes the middleware step aside without touching the response.
    origin: (origin, callback) => callback(null, any ? "*" : origin !== undefined && listed.has(origin) && origin),
    methods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"],
    allowedHeaders: [...CORS_ALLOWED_HEADERS],
    exposedHeaders: [...CORS_EXPOSED_HEADERS],
    maxAge: 600,
  });
}

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

/*
 * What a newcomer's first request finds: `GET /` answers a small index of
 * what this simulator serves (a browser, asking for HTML, is sent to the
 * home page an admin extension names, the dashboard's, instead), and `GET /openapi.json` is the public API's document,
 * the committed `spec/openapi.yaml` as JSON (a served dialect's own document). Both are outside the public API
 * itself: `publicHandler`, mounted in another app, leaves them to that app.
 */

const OPENAPI_PATH = "/openapi.json";

/** The guides, as the package ships them. */
const DOCS = "README.md and docs/ in the airtime-harness package (docs/simulator.md first)";

interface FrontDoorOptions {
  /** The page a browser is sent to, when an admin extension names one (the dashboard's `/_sim/ui`). */
  readonly home?: AdminHome | undefined;
  /** Whether `/_sim/…` serves the admin API. */
  readonly admin: boolean;
  /** The provider profile the public API speaks: `/openapi.json` is then that dialect's document. */
  readonly provider?: ProviderProfile | undefined;
}

interface FrontDoor {
  /** Answers `GET /` and `GET /openapi.json`; false for any other request, left to the caller. */
  answer(req: IncomingMessage, res: ServerResponse, path: string): boolean;
}

function prefersHtml(req: IncomingMessage): boolean {
  const accept = req.headers.accept;
  return typeof accept === "string" && accept.includes("text/html");
}

function createFrontDoor(options: FrontDoorOptions): FrontDoor {
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

/*
 * The body step of every request: 415 for a body that is not JSON or not
 * UTF-8, 413 above 64 KiB, 400 for malformed JSON, and a structural check of
 * the parsed value. Public and admin requests take the same step.
 *
 * An uncompressed body (nearly all of them) is read here and parsed once with
 * `JSON.parse`, as express 5's json parser (body-parser 2) would: strict
 * (only an object or an array at the top level), a leading BOM dropped, an
 * empty body read as `{}`. A compressed one goes to body-parser itself, which
 * inflates it. `JSON.parse` turns a `"__proto__"` key into an own property
 * rather than polluting a prototype, but such keys still reach any code that
 * copies the object, so they are refused here, as is nesting no airtime body
 * ever needs.
 */

const BODY_LIMIT_BYTES = 64 * 1024;
const MAX_BODY_DEPTH = 16;
const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);
const JSON_TYPES = ["application/json", "application/*+json"];
const YAML_TYPES = ["application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"];

/** Told once the body is read: the parsed value (undefined without a body), or the problem. */
type BodyCallback = (req: IncomingMessage, res: ServerResponse, body: unknown, problem: unknown) => void;

/** Whether a body follows, as body-parser decides it (`Content-Length: 0` counts: it reads as `{}`). */
function hasBodyToRead(req: IncomingMessage): boolean {
  return req.headers["transfer-encoding"] !== undefined || !Number.isNaN(Number(req.headers["content-length"]));
}

/** Whether a non-empty body follows: only then does a wrong type deserve a 415. */
function hasNonEmptyBody(req: IncomingMessage): boolean {
  return req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
}

/** A scenario file uploaded as YAML to the admin API; the scenarios route reads it. */
function isYamlScenarioUpload(req: IncomingMessage, path: string): boolean {
  return req.method === "POST" && path === "/_sim/scenarios" && typeIs(req, YAML_TYPES) !== false;
}

/**
 * One charset rule for every JSON body: UTF-8 (in any case) or none. JSON is
 * UTF-8 on the wire (RFC 8259 §8.1); body-parser alone would also decode
 * UTF-16 and UTF-32, which no client of this API sends on purpose.
 */
function charsetProblem(type: string): HttpProblem | undefined {
  let charset: string | null;
  try {
    charset = new MIMEType(type).params.get("charset");
  } catch {
    return undefined; // type-is already judged it JSON; its parser is the one that counts
  }
  if (charset === null || charset.toLowerCase() === "utf-8") return undefined;
  return new HttpProblem(
    "unsupported_media_type",
    `JSON bodies must be UTF-8: charset=${JSON.stringify(charset.slice(0, 40))} is not accepted; send no charset or charset=utf-8.`,
  );
}

/** The 415 problem for a request whose body is not UTF-8 JSON; undefined when it may pass. */
function contentTypeProblem(req: IncomingMessage, path: string): HttpProblem | undefined {
  const type = req.headers["content-type"];
  // The form nearly every client sends, known to be JSON without parsing it.
  if (type === "application/json") return undefined;
  if (!hasNonEmptyBody(req)) return undefined;
  if (type !== undefined && typeIs(req, JSON_TYPES) !== false) return charsetProblem(type);
  if (isYamlScenarioUpload(req, path)) return undefined;
  return new HttpProblem(
    "unsupported_media_type",
    type === undefined
      ? "A request body needs Content-Type: application/json."
      : `Content-Type ${JSON.stringify(type.slice(0, 100))} is not accepted; send application/json.`,
  );
}

const parseEncodedBody = express.json({ limit: BODY_LIMIT_BYTES, strict: true, type: JSON_TYPES });

const FIRST_NON_WHITESPACE = /^[\x20\x09\x0a\x0d]*([^\x20\x09\x0a\x0d]|$)/;

/** body-parser's strict JSON parse of a decoded body. */
function parseJsonText(text: string): unknown {
  if (text.length === 0) return {};
  const first = text[0] === "{" || text[0] === "[" ? text[0] : FIRST_NON_WHITESPACE.exec(text)?.[1];
  if (first !== "{" && first !== "[") throw malformedJson();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw malformedJson();
  }
}

function malformedJson(): HttpProblem {
  return new HttpProblem("malformed_json", "The request body is not valid JSON (a JSON object is expected).");
}

function tooLarge(): HttpProblem {
  return new HttpProblem("payload_too_large", "The request body is larger than 64 KiB.");
}

/**
 * A body being read. Its listeners are module-level functions that find it
 * on the request, so reading costs no closure per request.
 */
class BodyRead {
  chunks: Buffer[] = [];
  length = 0;
  constructor(
    readonly res: ServerResponse,
    readonly done: BodyCallback,
  ) {}
}

const READ = Symbol("airtime.body");

interface ReadingRequest extends IncomingMessage {
  [READ]?: BodyRead | undefined;
}

/**
 * The read in progress, now over; undefined once it is. The listeners stay
 * attached and find nothing to do afterwards: removing four listeners cost
 * more per request than they ever do again on a request that has ended.
 */
function stopReading(req: ReadingRequest): BodyRead | undefined {
  const read = req[READ];
  req[READ] = undefined;
  return read;
}

function onData(this: ReadingRequest, chunk: Buffer): void {
  const read = this[READ];
  if (read === undefined) return;
  read.length += chunk.length;
  if (read.length > BODY_LIMIT_BYTES) {
    stopReading(this);
    this.pause();
    read.done(this, read.res, undefined, tooLarge());
    return;
  }
  read.chunks.push(chunk);
}

function onEnd(this: ReadingRequest): void {
  const read = stopReading(this);
  if (read === undefined) return;
  const bytes = read.chunks.length === 1 ? (read.chunks[0] as Buffer) : Buffer.concat(read.chunks, read.length);
  let text = bytes.toString("utf8");
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let body: unknown;
  try {
    body = parseJsonText(text);
  } catch (problem) {
    read.done(this, read.res, undefined, problem);
    return;
  }
  read.done(this, read.res, body, structureProblem(body));
}

function onError(this: ReadingRequest): void {
  const read = stopReading(this);
  if (read === undefined) return;
  read.done(
    this,
    read.res,
    undefined,
    new HttpProblem("malformed_json", "The request body could not be read completely."),
  );
}

interface ParsedRequest extends IncomingMessage {
  body?: unknown;
}

/**
 * Reads and parses the body of any request, then calls `done` with it (or
 * with the problem). `path` is the URL's path, for the one upload that is not
 * JSON (a YAML scenario file, which the admin route reads itself).
 */
function readBody(req: IncomingMessage, res: ServerResponse, path: string, done: BodyCallback): void {
  const typeProblem = contentTypeProblem(req, path);
  if (typeProblem !== undefined) {
    done(req, res, undefined, typeProblem);
    return;
  }
  // Already read by a parser of the app this pipeline is mounted in: take what it parsed.
  if (req.readableEnded) {
    const body = (req as ParsedRequest).body;
    done(req, res, body, structureProblem(body));
    return;
  }
  if (
    !hasBodyToRead(req) ||
    (req.headers["content-type"] !== "application/json" && typeIs(req, JSON_TYPES) === false)
  ) {
    done(req, res, undefined, undefined);
    return;
  }
  const encoding = req.headers["content-encoding"];
  if (encoding !== undefined && encoding.toLowerCase() !== "identity") {
    parseEncodedBody(req as Request, res as Response, (error?: unknown) => {
      const body = (req as ParsedRequest).body;
      done(req, res, body, error ?? structureProblem(body));
    });
    return;
  }
  if (Number(req.headers["content-length"] ?? 0) > BODY_LIMIT_BYTES) {
    done(req, res, undefined, tooLarge());
    return;
  }
  (req as ReadingRequest)[READ] = new BodyRead(res, done);
  req.on("data", onData);
  req.on("end", onEnd);
  req.on("error", onError);
  req.on("aborted", onError);
}

function escapePointerToken(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

/**
 * Whether `findStructuralIssue` would find anything, without building a
 * pointer per key: every body takes this walk, only a refused one the
 * detailed one. Recursion stops at `MAX_BODY_DEPTH`, so the stack stays
 * shallow whatever the body.
 */
function hasStructuralIssue(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== "object") return false;
  if (depth >= MAX_BODY_DEPTH) return true;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      if (hasStructuralIssue(value[index], depth + 1)) return true;
    }
    return false;
  }
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_KEYS.has(key) || hasStructuralIssue((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

/** Iterative, so a pathological body cannot overflow the stack. */
function findStructuralIssue(body: unknown): { pointer: string; detail: string } | undefined {
  const stack: { value: unknown; pointer: string; depth: number }[] = [{ value: body, pointer: "#", depth: 0 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value, pointer, depth } = item;
    if (value === null || typeof value !== "object") continue;
    if (depth >= MAX_BODY_DEPTH) {
      return { pointer, detail: `nesting deeper than ${MAX_BODY_DEPTH} levels is not accepted` };
    }
    if (Array.isArray(value)) {
      value.forEach((element, index) => {
        stack.push({ value: element, pointer: `${pointer}/${index}`, depth: depth + 1 });
      });
      continue;
    }
    for (const key of Object.keys(value)) {
      const child = `${pointer}/${escapePointerToken(key)}`;
      if (FORBIDDEN_KEYS.has(key)) return { pointer: child, detail: `the key ${JSON.stringify(key)} is not accepted` };
      stack.push({ value: (value as Record<string, unknown>)[key], pointer: child, depth: depth + 1 });
    }
  }
  return undefined;
}

/** The problem with a parsed body's structure, if any. */
function structureProblem(body: unknown): HttpProblem | undefined {
  const issue = hasStructuralIssue(body, 0) ? findStructuralIssue(body) : undefined;
  return issue === undefined
    ? undefined
    : new HttpProblem("validation_failed", "The request body has an unsafe structure.", { errors: [issue] });
}
