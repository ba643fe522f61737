/**
 * The keys an object schema accepts at a path inside it, for "did you mean"
 * on an unknown key. Read from the schema's JSON Schema, which spells every
 * object, list, union and record the same way whatever zod built it from.
 */
import { z } from "zod";
import { closestName } from "./did-you-mean.ts";
import type { ReadableIssue } from "./readable-issues.ts";

interface JsonNode {
  readonly properties?: Readonly<Record<string, JsonNode>>;
  readonly additionalProperties?: JsonNode | boolean;
  readonly items?: JsonNode;
  readonly anyOf?: readonly JsonNode[];
  readonly oneOf?: readonly JsonNode[];
  readonly allOf?: readonly JsonNode[];
}

/** A node and the branches of its unions, flattened. */
function branches(node: JsonNode): JsonNode[] {
  const nested = [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])];
  return [node, ...nested.flatMap(branches)];
}

function child(node: JsonNode, key: PropertyKey): JsonNode | undefined {
  if (typeof key === "number") return node.items;
  const named = node.properties?.[String(key)];
  if (named !== undefined) return named;
  return typeof node.additionalProperties === "object" ? node.additionalProperties : undefined;
}

/**
 * A function giving the keys `schema` accepts at a path; the JSON Schema is
 * built on the first call.
 *
 * @example
 * const keys = keysOf(z.object({ clock: z.string(), webhooks: z.object({ schedule: z.string() }) }));
 * keys(["webhooks"]); // ["schedule"]
 */
export function keysOf(schema: z.ZodType): (path: readonly PropertyKey[]) => string[] {
  let root: JsonNode | undefined;
  return (path) => {
    root ??= z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonNode;
    let nodes = [root];
    for (const key of path) {
      nodes = nodes.flatMap(branches).flatMap((node) => child(node, key) ?? []);
    }
    return [...new Set(nodes.flatMap(branches).flatMap((node) => Object.keys(node.properties ?? {})))];
  };
}

/**
 * One issue per unknown key of zod's `unrecognized_keys` issue, each at the
 * key's own path and naming the key it most likely meant.
 */
export function unknownKeyIssues(
  issue: z.core.$ZodIssueUnrecognizedKeys,
  keysAt: (path: readonly PropertyKey[]) => readonly string[],
  what: string,
): ReadableIssue[] {
  const known = keysAt(issue.path);
  return issue.keys.map((key) => {
    const meant = closestName(key, known);
    return { path: [...issue.path, key], message: `${what}${meant === undefined ? "" : `; did you mean ${meant}?`}` };
  });
}
