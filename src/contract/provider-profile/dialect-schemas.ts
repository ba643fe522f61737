/**
 * JSON Schemas of a dialect's bodies, built from its profile the way the
 * renderer writes them: each field at its pointer (containers made on the
 * way and required: an array where the next segment is an index, unless the
 * profile states the kind), money as a number or a decimal string, statuses as the
 * table's codes or words, `extra` fields by their template. The members
 * the profile does not name are allowed beside them.
 */
import { compileProfile } from "./compile.ts";
import type { ProviderProfile } from "./schema.ts";
import { compileKindOf, type ContainerKind, type KindOf, pointerKeys } from "./body-layout.ts";

export type JsonSchema = Record<string, unknown>;

export interface DialectSchemas {
  readonly order: JsonSchema;
  /** A failed order for want of balance: the order without its id, and the error code. */
  readonly insufficient: JsonSchema;
  readonly lookup: JsonSchema;
  readonly balance: JsonSchema;
  readonly error: JsonSchema;
  readonly webhook: JsonSchema;
}

type Extra = { readonly uuid: true } | { readonly constant: unknown } | { readonly orderCreatedAt: true };

function extraSchema(template: Extra): JsonSchema {
  if ("uuid" in template) return { type: "string", format: "uuid" };
  if ("constant" in template) return { const: template.constant };
  return { type: "string", format: "date-time" };
}

/** A container being built: an object's members or an array's items, by key. */
interface Node {
  readonly kind: ContainerKind;
  readonly children: Map<string, Node | JsonSchema>;
}

/** The node's JSON Schema: an object with its members required, or an array with its items in place. */
function nodeSchema(node: Node): JsonSchema {
  const entries = [...node.children];
  const schemaOf = (child: Node | JsonSchema) => (isNode(child) ? nodeSchema(child) : child);
  if (node.kind === "object") {
    return {
      type: "object",
      properties: Object.fromEntries(entries.map(([key, child]) => [key, schemaOf(child)])),
      required: entries.map(([key]) => key),
    };
  }
  const length = Math.max(...entries.map(([key]) => Number(key))) + 1;
  const first = node.children.get("0");
  // Only the first item named: a list of such items (a provider may list more), at least the one written.
  if (length === 1 && first !== undefined) return { type: "array", items: schemaOf(first), minItems: 1 };
  const items = Array.from({ length }, (_, index) => {
    const child = node.children.get(String(index));
    return child === undefined ? {} : schemaOf(child);
  });
  return { type: "array", prefixItems: items, minItems: length, maxItems: length };
}

function isNode(value: Node | JsonSchema): value is Node {
  return (value as Partial<Node>).children instanceof Map;
}

/** The body's schema with each schema placed at its pointer, containers of the kind the renderer creates. */
function bodySchema(placed: ReadonlyArray<readonly [string, JsonSchema]>, kindOf: KindOf): JsonSchema {
  const root: Node = { kind: "object", children: new Map() };
  for (const [pointer, schema] of placed) {
    const keys = pointerKeys(pointer);
    let node = root;
    keys.forEach((key, index) => {
      if (index === keys.length - 1) {
        node.children.set(key, schema);
        return;
      }
      const next = node.children.get(key);
      if (next !== undefined && isNode(next)) {
        node = next;
        return;
      }
      const created: Node = { kind: kindOf(keys, index + 1), children: new Map() };
      node.children.set(key, created);
      node = created;
    });
  }
  return nodeSchema(root);
}

/**
 * @example
 * const schemas = dialectSchemas(profile);
 * schemas.lookup; // { type: "object", properties: { data: { … status: { enum: ["PENDING", …] } } } }
 */
export function dialectSchemas(file: ProviderProfile | undefined): DialectSchemas {
  const profile = compileProfile(file);
  const { bodies, money, statusValues, event } = profile.resolved;
  const table = file?.statuses?.table;
  const codes = table === undefined ? { type: "integer" } : { type: "integer", enum: table.map((entry) => entry.code) };
  const written =
    statusValues === "word" && table !== undefined
      ? { type: "string", enum: table.flatMap((entry) => (entry.word === undefined ? [] : [entry.word])) }
      : codes;
  const amount = money === "string" ? { type: "string", pattern: "^-?\\d+\\.\\d{2}$" } : { type: "number" };
  const text = { type: "string" };
  const extras = (kind: keyof NonNullable<ProviderProfile["bodies"]>) =>
    Object.entries((file?.bodies?.[kind]?.extra ?? {}) as Record<string, Extra>).map(
      ([pointer, template]) => [pointer, extraSchema(template)] as const,
    );
  const errorFields = [[bodies.error.code, text] as const, ...extras("error")];
  const orderWithoutId = [
    [bodies.order.reference, text],
    [bodies.order.status, codes],
    [bodies.order.message, text],
  ] as const;
  const deliveryId = profile.resolved.deliveryId;
  const kindOf = (kind: keyof NonNullable<ProviderProfile["bodies"]>) =>
    compileKindOf(file?.bodies?.[kind]?.containers);
  return {
    order: bodySchema([[bodies.order.id, text], ...orderWithoutId, ...extras("order")], kindOf("order")),
    insufficient: bodySchema([...orderWithoutId, ...errorFields], kindOf("order")),
    lookup: bodySchema(
      [
        [bodies.lookup.id, text],
        [bodies.lookup.reference, text],
        [bodies.lookup.status, written],
        [bodies.lookup.amount, amount],
        ...extras("lookup"),
      ],
      kindOf("lookup"),
    ),
    balance: bodySchema([[bodies.balance.amount, amount], ...extras("balance")], kindOf("balance")),
    error: bodySchema([...errorFields, [bodies.error.message, text]], kindOf("error")),
    webhook: bodySchema(
      [
        [bodies.webhook.id, text],
        [bodies.webhook.reference, text],
        [bodies.webhook.status, written],
        [bodies.webhook.amount, amount],
        [event.pointer, { type: "string", enum: [...event.values] }],
        ...("pointer" in deliveryId ? [[deliveryId.pointer, text] as const] : []),
        ...extras("webhook"),
      ],
      kindOf("webhook"),
    ),
  };
}
