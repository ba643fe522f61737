/**
 * zod → JSON Schema 2020-12 (the dialect of OpenAPI 3.1), one schema at a
 * time, split into the schema itself and the named schemas it uses. zod puts
 * every schema carrying `.meta({ id })` into `$defs` and points at it with
 * `#/$defs/<id>`; the registry turns those into `#/components/schemas/<name>`.
 */
import { z } from "zod";

/** A JSON Schema object as zod emits it (plain JSON data). */
export type JsonSchema = { [key: string]: unknown };

/** Which side of a schema to describe: what a parser accepts, or what it produces. */
export type SchemaIo = "input" | "output";

export interface ConvertedSchema {
  /** The schema itself; a bare `{ $ref: "#/$defs/<id>" }` when it carries an id. */
  readonly root: JsonSchema;
  /** Every schema with an id that `root` uses (itself included), by id. */
  readonly defs: Readonly<Record<string, JsonSchema>>;
}

const DEFS_PREFIX = "#/$defs/";

/**
 * Converts one zod schema. Fails for types JSON cannot describe (a transform's
 * output, a function) instead of silently emitting `{}`, so the document never
 * promises less than the code checks.
 *
 * @example
 * const { root, defs } = convertZodSchema(SendAirtimeRequestSchema, "input");
 * // root: { $ref: "#/$defs/SendAirtimeRequest" }, defs: { SendAirtimeRequest, Service, Account, … }
 */
export function convertZodSchema(schema: z.ZodType, io: SchemaIo): ConvertedSchema {
  const json = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    unrepresentable: "throw",
    cycles: "ref",
    reused: "inline",
  }) as JsonSchema;
  const { $schema: _dialect, $defs, ...root } = json;
  const defs: Record<string, JsonSchema> = {};
  for (const [id, def] of Object.entries(($defs ?? {}) as Record<string, JsonSchema>)) {
    defs[id] = normaliseNode(def) as JsonSchema;
  }
  return { root: normaliseNode(root) as JsonSchema, defs };
}

/** The ids a converted schema refers to with `#/$defs/<id>`. */
export function referencedIds(node: unknown, into: Set<string> = new Set()): Set<string> {
  if (Array.isArray(node)) {
    for (const item of node) referencedIds(item, into);
  } else if (isObject(node)) {
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string" && value.startsWith(DEFS_PREFIX)) {
        into.add(value.slice(DEFS_PREFIX.length));
      } else {
        referencedIds(value, into);
      }
    }
  }
  return into;
}

/** Replaces every `#/$defs/<id>` with `refFor(id)`; returns a new tree. */
export function rewriteRefs(node: unknown, refFor: (id: string) => string): unknown {
  if (Array.isArray(node)) return node.map((item) => rewriteRefs(item, refFor));
  if (!isObject(node)) return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] =
      key === "$ref" && typeof value === "string" && value.startsWith(DEFS_PREFIX)
        ? refFor(value.slice(DEFS_PREFIX.length))
        : rewriteRefs(value, refFor);
  }
  return out;
}

/** JSON text with object keys sorted: equal for equal schemas whatever their key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    isObject(v) && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

export function isObject(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * `example` is deprecated in OpenAPI 3.1 schemas; JSON Schema 2020-12 has
 * `examples` (a list). Schemas keep writing `.meta({ example })`, the
 * document gets the standard keyword. `$id`/`$schema` are dropped: components
 * are addressed by `$ref`, and the dialect is the document's.
 */
function normaliseNode(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(normaliseNode);
  if (!isObject(node)) return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "$id" || key === "$schema") continue;
    if (key === "example") {
      if (!("examples" in node)) out.examples = [value];
    } else if (SCHEMA_MAP_KEYWORDS.has(key) && isObject(value)) {
      // Keys here are property names, not keywords: a property called `example` stays.
      out[key] = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, normaliseNode(child)]));
    } else {
      out[key] = DATA_KEYWORDS.has(key) ? value : normaliseNode(value);
    }
  }
  return out;
}

/** Keywords whose value maps names to schemas. */
const SCHEMA_MAP_KEYWORDS = new Set(["properties", "patternProperties", "$defs", "dependentSchemas"]);
/** Keywords whose value is instance data, never a schema. */
const DATA_KEYWORDS = new Set(["enum", "const", "default", "examples"]);
