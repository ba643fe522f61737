/**
 * An OpenAPI document from route declarations, through zod-openapi, as the
 * YAML committed under `spec/`.
 */
import { stringify } from "yaml";
import { createDocument, type ZodOpenApiObject } from "zod-openapi";
import { assertExamplesMatch, pathsOf, type RouteDeclaration } from "../routes/route.ts";

export interface DocumentParts extends Omit<ZodOpenApiObject, "openapi" | "paths" | "webhooks"> {
  readonly routes: readonly RouteDeclaration[];
  /** Requests the server sends (the public document's webhook), keyed by `path` as their name. */
  readonly webhooks?: readonly RouteDeclaration[];
}

/**
 * @example
 * const document = generateDocument({ info: { title: "API", version: "1" }, routes: publicRoutes(DEFAULT_ORDER_LIMITS) });
 * document.paths?.["/v1/airtime"]?.post?.operationId; // "sendAirtime"
 */
export function generateDocument({ routes, webhooks, ...parts }: DocumentParts) {
  assertExamplesMatch([...routes, ...(webhooks ?? [])]);
  const document = createDocument({
    openapi: "3.1.0",
    ...parts,
    paths: pathsOf(routes),
    ...(webhooks === undefined ? {} : { webhooks: pathsOf(webhooks) }),
  });
  dropParamMetaBesideRefs(document);
  return document;
}

/** zod-openapi 5 leaves `.meta({ param })` on a parameter's schema when that schema is a component's `$ref`. */
function dropParamMetaBesideRefs(node: unknown): void {
  if (typeof node !== "object" || node === null) return;
  if ("$ref" in node && "param" in node) delete node.param;
  for (const child of Object.values(node)) dropParamMetaBesideRefs(child);
}

/** YAML without anchors or line folding, so the committed file changes exactly where the schemas changed. */
export function renderOpenApiYaml(document: object, headerComment: string): string {
  const body = stringify(document, { aliasDuplicateObjects: false, lineWidth: 0, indent: 2 });
  return `${headerComment.replace(/^/gm, "# ")}\n${body}`;
}
