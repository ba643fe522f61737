/**
 * A route declared once, without any HTTP framework: its method, its path
 * and its OpenAPI operation, whose zod schemas are both what the document
 * describes (through zod-openapi) and what the HTTP layer validates with.
 */
import type { z } from "zod";
import type { ZodOpenApiMediaTypeObject, ZodOpenApiOperationObject, ZodOpenApiPathsObject } from "zod-openapi";

export type HttpMethod = "get" | "post" | "patch" | "delete";

export interface RouteDeclaration {
  readonly method: HttpMethod;
  /** OpenAPI style, relative to the server root: `/v1/airtime/{reference}`. */
  readonly path: string;
  readonly operation: ZodOpenApiOperationObject;
}

export interface NamedExample {
  readonly summary: string;
  readonly value: unknown;
}

/** Examples by name; the first one is what a mock server answers by default. */
export type NamedExamples = Readonly<Record<string, NamedExample>>;

type JsonBodyOf<R extends RouteDeclaration> = NonNullable<
  NonNullable<R["operation"]["requestBody"]>["content"]["application/json"]
>["schema"];
type QueryOf<R extends RouteDeclaration> = NonNullable<NonNullable<R["operation"]["requestParams"]>["query"]>;

/**
 * The zod schema of a route's JSON request body, for the HTTP layer to
 * validate with.
 *
 * @example
 * validate(jsonBodySchema(ADVANCE_CLOCK_ROUTE), req.body, "clock advance");
 */
export function jsonBodySchema<R extends RouteDeclaration>(route: R): JsonBodyOf<R> {
  const schema = route.operation.requestBody?.content["application/json"]?.schema;
  if (schema === undefined) throw new Error(`${route.method} ${route.path} declares no JSON body`);
  return schema as JsonBodyOf<R>;
}

/** The zod object schema of a route's query parameters. */
export function querySchema<R extends RouteDeclaration>(route: R): QueryOf<R> {
  const schema = route.operation.requestParams?.query;
  if (schema === undefined) throw new Error(`${route.method} ${route.path} declares no query`);
  return schema as QueryOf<R>;
}

/** The routes as an OpenAPI `paths` object, in declaration order. */
export function pathsOf(routes: readonly RouteDeclaration[]): ZodOpenApiPathsObject {
  const paths: ZodOpenApiPathsObject = {};
  for (const { method, path, operation } of routes) paths[path] = { ...paths[path], [method]: operation };
  return paths;
}

/**
 * Throws when an example does not parse with the zod schema next to it, so
 * a document with a wrong example cannot be generated.
 */
export function assertExamplesMatch(routes: readonly RouteDeclaration[]): void {
  for (const { method, path, operation } of routes) {
    const contents = [
      operation.requestBody?.content,
      ...Object.values(operation.responses).map((response) =>
        response !== undefined && "content" in response ? response.content : undefined,
      ),
    ];
    for (const content of contents) {
      for (const media of Object.values<ZodOpenApiMediaTypeObject | undefined>(content ?? {})) {
        const schema = media?.schema;
        if (schema === undefined || !("safeParse" in schema)) continue;
        for (const [name, example] of Object.entries(media?.examples ?? {})) {
          const result = (schema as z.ZodType).safeParse((example as { value?: unknown }).value);
          if (result.success) continue;
          const where = result.error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`);
          throw new Error(`${method} ${path}: example "${name}" does not match its schema: ${where.join("; ")}`);
        }
      }
    }
  }
}
