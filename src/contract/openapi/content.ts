/**
 * Request bodies, responses, headers and parameters from zod schemas, each
 * with named examples that are checked against their schema while the
 * document is built: a document with a wrong example cannot be generated.
 */
import type {
  ContentObject,
  HeaderObject,
  ParameterLocation,
  ParameterObject,
  ReferenceObject,
  RequestBodyObject,
  ResponseObject,
} from "openapi3-ts/oas31";
import type { z } from "zod";
import type { SchemaIo } from "./json-schema.ts";
import type { SchemaRegistry } from "./schema-registry.ts";

export interface NamedExample {
  readonly summary: string;
  readonly description?: string;
  readonly value: unknown;
}

/** Examples by name; the first one is what a mock server answers by default. */
export type NamedExamples = Readonly<Record<string, NamedExample>>;

export const JSON_MEDIA_TYPE = "application/json";

/**
 * Throws when an example does not parse with its schema, naming the example
 * and the offending fields.
 *
 * @example
 * assertExamplesMatch(SendAirtimeResponseSchema, { pending: { summary: "…", value: { … } } });
 */
export function assertExamplesMatch(schema: z.ZodType, examples: NamedExamples): void {
  for (const [name, example] of Object.entries(examples)) {
    const result = schema.safeParse(example.value);
    if (!result.success) {
      const where = result.error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`);
      throw new Error(`example "${name}" does not match its schema: ${where.join("; ")}`);
    }
  }
}

export interface JsonContentOptions {
  readonly io: SchemaIo;
  /** Default `application/json`; problem responses use `application/problem+json`. */
  readonly mediaType?: string;
}

/**
 * @example
 * jsonContent(registry, BalanceResponseSchema, { ok: { summary: "Default wallet", value: balance } }, { io: "output" });
 * // { "application/json": { schema: { $ref: "#/components/schemas/BalanceResponse" }, examples: { ok: … } } }
 */
export function jsonContent(
  registry: SchemaRegistry,
  schema: z.ZodType,
  examples: NamedExamples,
  options: JsonContentOptions,
): ContentObject {
  assertExamplesMatch(schema, examples);
  return {
    [options.mediaType ?? JSON_MEDIA_TYPE]: {
      schema: registry.use(schema, options.io),
      examples: Object.fromEntries(Object.entries(examples).map(([name, example]) => [name, { ...example }])),
    },
  };
}

export interface JsonBodyOptions {
  readonly description?: string;
  readonly mediaType?: string;
  /**
   * Default `input`: the server parses the body. A webhook's body is produced
   * by the server, so it is described as `output`.
   */
  readonly io?: SchemaIo;
}

/**
 * A required JSON request body.
 *
 * @example
 * requestBody: jsonBody(registry, SendAirtimeRequestSchema, { minimal: { summary: "…", value: order } })
 */
export function jsonBody(
  registry: SchemaRegistry,
  schema: z.ZodType,
  examples: NamedExamples,
  options: JsonBodyOptions = {},
): RequestBodyObject {
  return {
    ...(options.description === undefined ? {} : { description: options.description }),
    required: true,
    content: jsonContent(registry, schema, examples, { io: options.io ?? "input", mediaType: options.mediaType }),
  };
}

export interface JsonResponseOptions {
  readonly description: string;
  readonly headers?: Readonly<Record<string, HeaderObject | ReferenceObject>>;
  readonly mediaType?: string;
}

/**
 * A JSON response, described as what the server produces.
 *
 * @example
 * responses: { "200": jsonResponse(registry, BalanceResponseSchema, examples, { description: "The balance." }) }
 */
export function jsonResponse(
  registry: SchemaRegistry,
  schema: z.ZodType,
  examples: NamedExamples,
  options: JsonResponseOptions,
): ResponseObject {
  return {
    description: options.description,
    ...(options.headers === undefined ? {} : { headers: { ...options.headers } }),
    content: jsonContent(registry, schema, examples, { io: "output", mediaType: options.mediaType }),
  };
}

/**
 * A response header from a zod schema; its description comes from the
 * schema's metadata unless given.
 *
 * @example
 * header(registry, z.literal("true"), { description: "Present on a replayed response." })
 */
export function header(
  registry: SchemaRegistry,
  schema: z.ZodType,
  options: { readonly description?: string; readonly required?: boolean; readonly example?: unknown } = {},
): HeaderObject {
  const description = options.description ?? schema.meta()?.description;
  return {
    ...(description === undefined ? {} : { description }),
    required: options.required ?? false,
    schema: withoutDescription(registry.use(schema, "output"), description),
    ...(options.example === undefined ? {} : { example: options.example }),
  };
}

export interface ParameterOptions {
  readonly name: string;
  readonly in: ParameterLocation;
  readonly required?: boolean;
  readonly description?: string;
  readonly example?: unknown;
}

/**
 * A parameter from a zod schema, described as parser input. Path parameters
 * are always required (OpenAPI demands it).
 *
 * @example
 * parameter(registry, ReferenceSchema, { name: "reference", in: "path", description: "The order's reference." })
 */
export function parameter(registry: SchemaRegistry, schema: z.ZodType, options: ParameterOptions): ParameterObject {
  const description = options.description ?? schema.meta()?.description;
  if (options.example !== undefined) assertExamplesMatch(schema, { example: { summary: "", value: options.example } });
  return {
    name: options.name,
    in: options.in,
    ...(description === undefined ? {} : { description }),
    required: options.in === "path" ? true : (options.required ?? false),
    schema: withoutDescription(registry.use(schema, "input"), description),
    ...(options.example === undefined ? {} : { example: options.example }),
  };
}

/** An inline schema repeating its header's or parameter's description says it twice; keep the outer one. */
function withoutDescription<T extends object>(schema: T, description: string | undefined): T {
  if (description === undefined || !("description" in schema) || schema.description !== description) return schema;
  const { description: _same, ...rest } = schema;
  return rest as T;
}
