/**
 * Routing derived from route declarations, with no framework: the paths,
 * methods and `Allow` lists come from the declarations in
 * `src/contract/routes/`, so a route is declared once and only its handler
 * is added here. Matching is what the express router did before: exact
 * case, one optional trailing slash, a `{name}` template segment matching
 * one non-empty path segment, GET routes answering HEAD too.
 */
import type { RouteDeclaration } from "../contract/routes/route.ts";
import { allowedMethods } from "./method-not-allowed.ts";

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
