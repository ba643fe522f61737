/**
 * Reading a provider's OpenAPI 3.0/3.1 document: `$ref`s followed, each
 * operation's bodies found by path and method, and a schema flattened into
 * its leaves (a JSON pointer per scalar field, array items at index 0, every
 * branch of oneOf/anyOf/allOf at the same place), with the property's name,
 * type, enum or const and description.
 */
import { resolveRef } from "../harness/spec-domain.ts";

type Json = Record<string, unknown>;

export interface SchemaLeaf {
  readonly pointer: string;
  readonly name: string;
  readonly schema: Json;
  /** The branch of a oneOf/anyOf it was found in, when the body has several. */
  readonly branch: number | undefined;
}

export interface OpenApiDocument {
  /** The node a `$ref` names (chains followed); any other node as it is. */
  resolve(node: unknown): Json;
  /** The JSON schema of an operation's request (`status` "request") or of one of its responses. */
  bodySchema(path: RegExp, method: string, status: string): Json | undefined;
  /** Every response of the operations under `path` matching, with the status code and description. */
  responses(
    path: RegExp,
  ): { method: string; status: string; description: string; schema: Json | undefined; example: unknown }[];
  /** The webhook operations (3.1 `webhooks`, or the `x-webhooks` extension of 3.0). */
  webhooks(): Json[];
  leaves(schema: Json | undefined): SchemaLeaf[];
  readonly raw: Json;
}

const escape = (name: string) => name.replaceAll("~", "~0").replaceAll("/", "~1");

export function openApiDocument(raw: Json): OpenApiDocument {
  const resolve = (node: unknown): Json => resolveRef(raw, node);
  const jsonOf = (content: unknown): { schema: Json | undefined; example: unknown } => {
    const media = resolve(content);
    const name = Object.keys(media).find((candidate) => /json/i.test(candidate));
    const entry = name === undefined ? undefined : resolve(media[name]);
    return { schema: entry === undefined ? undefined : resolve(entry.schema), example: entry?.example };
  };
  const operations = (path: RegExp) =>
    Object.entries(resolve(raw.paths)).flatMap(([name, item]) =>
      path.test(name)
        ? Object.entries(resolve(item)).flatMap(([method, operation]) =>
            ["get", "post", "put", "delete", "patch"].includes(method)
              ? [{ method, operation: resolve(operation) }]
              : [],
          )
        : [],
    );

  function leaves(schema: Json | undefined, pointer = "", name = "", branch?: number, depth = 0): SchemaLeaf[] {
    if (schema === undefined || depth > 12) return [];
    const node = resolve(schema);
    const branches = [...asList(node.oneOf), ...asList(node.anyOf)];
    if (branches.length > 0) {
      return branches.flatMap((child, index) => leaves(resolve(child), pointer, name, branch ?? index, depth + 1));
    }
    const all = asList(node.allOf).flatMap((child) => leaves(resolve(child), pointer, name, branch, depth + 1));
    if (node.type === "array" || node.items !== undefined) {
      return [...all, ...leaves(resolve(node.items), `${pointer}/0`, name, branch, depth + 1)];
    }
    const properties = resolve(node.properties);
    if (Object.keys(properties).length > 0) {
      return [
        ...all,
        ...Object.entries(properties).flatMap(([key, child]) =>
          leaves(resolve(child), `${pointer}/${escape(key)}`, key, branch, depth + 1),
        ),
      ];
    }
    return all.length > 0 ? all : [{ pointer, name, schema: node, branch }];
  }

  return {
    raw,
    resolve,
    bodySchema(path, method, status) {
      const found = operations(path).find((operation) => operation.method === method)?.operation;
      if (found === undefined) return undefined;
      if (status === "request") return jsonOf(resolve(found.requestBody).content).schema;
      return jsonOf(resolve(resolve(found.responses)[status]).content).schema;
    },
    responses(path) {
      return operations(path).flatMap(({ method, operation }) =>
        Object.entries(resolve(operation.responses)).map(([status, response]) => {
          const resolved = resolve(response);
          return {
            method,
            status,
            description: typeof resolved.description === "string" ? resolved.description : "",
            ...jsonOf(resolved.content),
          };
        }),
      );
    },
    webhooks() {
      const hooks = resolve(raw.webhooks ?? raw["x-webhooks"]);
      return Object.values(hooks).flatMap((item) => {
        const post = resolve(item).post;
        return post === undefined ? [] : [resolve(post)];
      });
    },
    leaves: (schema) => leaves(schema),
  };
}

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** What a leaf says of itself: its name, its description and its enum, lower-cased, for matching by words. */
export function leafText(leaf: SchemaLeaf): string {
  const description = typeof leaf.schema.description === "string" ? leaf.schema.description : "";
  return `${leaf.name} ${description}`.toLowerCase();
}
