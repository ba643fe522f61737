/**
 * Collects zod schemas into `components.schemas`. A schema with
 * `.meta({ id })` becomes a component of that name and is used through
 * `$ref: "#/components/schemas/<id>"`; a schema without an id is inlined.
 *
 * Request bodies are described as input (what the parser accepts: unknown
 * fields allowed, defaults optional), responses as output (what the server
 * produces: closed objects). When one id describes differently on the two
 * sides, the side registered second gets a suffixed component (`XOutput` or
 * `XInput`), and so does every component that uses it.
 */
import type { ReferenceObject, SchemaObject } from "openapi3-ts/oas31";
import type { z } from "zod";
import {
  canonicalJson,
  convertZodSchema,
  type JsonSchema,
  referencedIds,
  rewriteRefs,
  type SchemaIo,
} from "./json-schema.ts";

export const COMPONENT_SCHEMA_PREFIX = "#/components/schemas/";

export interface SchemaRegistry {
  /**
   * The schema for a place in the document: a `$ref` when it has an id
   * (the component is added), else the inline schema (with `$ref`s to any
   * component it uses).
   */
  use(schema: z.ZodType, io: SchemaIo): SchemaObject | ReferenceObject;
  /** Adds schemas as components even when nothing uses them yet. */
  add(schemas: readonly z.ZodType[], io: SchemaIo): void;
  /** `components.schemas`, sorted by name. */
  components(): Record<string, SchemaObject>;
  /** The zod schema behind a component registered through `use`/`add`, for checking examples. */
  zodSchemaOf(componentName: string): z.ZodType | undefined;
}

interface Component {
  readonly schema: JsonSchema;
  readonly io: SchemaIo;
}

const SUFFIX: Record<SchemaIo, string> = { input: "Input", output: "Output" };

/**
 * @example
 * const registry = createSchemaRegistry();
 * const body = registry.use(SendAirtimeRequestSchema, "input");
 * // { $ref: "#/components/schemas/SendAirtimeRequest" }
 * registry.components(); // { Account: {…}, IdempotencyKey: {…}, SendAirtimeRequest: {…}, … }
 */
export function createSchemaRegistry(): SchemaRegistry {
  const components = new Map<string, Component>();
  const zodByName = new Map<string, z.ZodType>();

  /** Component names for the ids of one conversion, suffixing the ones that differ from the other side. */
  function nameIds(defs: Readonly<Record<string, JsonSchema>>, io: SchemaIo): Map<string, string> {
    const names = new Map(Object.keys(defs).map((id) => [id, id]));
    const render = (id: string) => rewriteRefs(defs[id], (ref) => COMPONENT_SCHEMA_PREFIX + (names.get(ref) ?? ref));
    // A component changes when it, or anything it uses, renders differently: iterate to a fixpoint.
    for (let changed = true; changed;) {
      changed = false;
      for (const id of names.keys()) {
        const existing = components.get(id);
        if (names.get(id) !== id || existing === undefined || existing.io === io) continue;
        if (canonicalJson(existing.schema) !== canonicalJson(render(id))) {
          names.set(id, `${id}${SUFFIX[io]}`);
          changed = true;
        }
      }
    }
    for (const [id, name] of names) {
      const schema = render(id) as JsonSchema;
      const existing = components.get(name);
      if (existing === undefined) {
        components.set(name, { schema, io });
      } else if (canonicalJson(existing.schema) !== canonicalJson(schema)) {
        throw new Error(`two different schemas claim the component name "${name}": give one another .meta({ id })`);
      }
    }
    return names;
  }

  function use(schema: z.ZodType, io: SchemaIo): SchemaObject | ReferenceObject {
    const { root, defs } = convertZodSchema(schema, io);
    for (const id of referencedIds(root)) {
      if (!(id in defs)) throw new Error(`zod referenced "${id}" without defining it`);
    }
    const names = nameIds(defs, io);
    const rendered = rewriteRefs(root, (id) => COMPONENT_SCHEMA_PREFIX + (names.get(id) ?? id)) as SchemaObject;
    const ownName = ownComponentName(rendered);
    if (ownName !== undefined) {
      const previous = zodByName.get(ownName);
      if (previous === undefined) zodByName.set(ownName, schema);
    }
    return rendered;
  }

  return {
    use,
    add(schemas, io) {
      for (const schema of schemas) use(schema, io);
    },
    components() {
      const names = [...components.keys()].sort();
      return Object.fromEntries(names.map((name) => [name, components.get(name)!.schema as SchemaObject]));
    },
    zodSchemaOf: (name) => zodByName.get(name),
  };
}

/** The component a bare `{ $ref }` points at; undefined for inline schemas or a `$ref` with siblings. */
function ownComponentName(schema: SchemaObject): string | undefined {
  const keys = Object.keys(schema);
  const ref = schema.$ref;
  if (keys.length !== 1 || typeof ref !== "string" || !ref.startsWith(COMPONENT_SCHEMA_PREFIX)) return undefined;
  return ref.slice(COMPONENT_SCHEMA_PREFIX.length);
}
