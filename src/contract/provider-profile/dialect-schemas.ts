/**
 * JSON Schemas of a dialect's bodies, built from its profile the way the
 * renderer writes them: each field at its pointer (containers made on the
 * way and required: an array where the next segment is an index, unless the
 * profile states the kind), money as a number or a decimal string, statuses
 * as the table's codes or words, `extra` fields by their template, the
 * members of ours a `passthrough` keeps with our schemas' types (a kept
 * history, and the balance's `status`, in the profile's statuses). Every
 * object is closed: a member the profile does not state is not in the body,
 * as the renderer leaves it out.
 */
import { z } from "zod";
import { ProblemSchema, BalanceResponseSchema, TransactionStatusResponseSchema } from "../public-schemas.ts";
import { WebhookPayloadSchema } from "../webhook-schemas.ts";
import { BALANCE_OK_STATUS } from "../status-codes.ts";
import { compileProfile } from "./compile.ts";
import { type DialectStatusEntry, mapStatuses } from "./dialect-statuses.ts";
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

type PassthroughKind = "lookup" | "webhook" | "balance" | "error";

/** Our spec's bodies as JSON Schemas (no shared definitions), whose members a passthrough keeps. */
const OUR_BODIES: Readonly<Record<PassthroughKind, z.ZodObject>> = {
  lookup: TransactionStatusResponseSchema,
  webhook: WebhookPayloadSchema,
  balance: BalanceResponseSchema,
  error: ProblemSchema,
};

function ourMembers(kind: PassthroughKind): { properties: Record<string, JsonSchema>; required: readonly string[] } {
  const schema = z.toJSONSchema(OUR_BODIES[kind], { metadata: z.registry(), io: "output" });
  return { properties: schema.properties as Record<string, JsonSchema>, required: schema.required ?? [] };
}

/** How the dialect writes what a kept member holds: a record's status, money, and the balance's Success. */
interface DialectValues {
  readonly written: JsonSchema;
  readonly amount: JsonSchema;
  readonly balanceStatus: JsonSchema;
}

/** A kept member's schema: ours, with statuses and money written as the dialect writes them. */
function keptSchema(
  kind: PassthroughKind,
  name: string,
  { written, amount, balanceStatus }: DialectValues,
): JsonSchema {
  const ours = ourMembers(kind).properties[name] ?? {};
  if (kind === "balance" && name === "status") return balanceStatus;
  const items = ours.items as JsonSchema | undefined;
  const properties = items?.properties as Record<string, JsonSchema> | undefined;
  if (name === "history" && properties !== undefined) {
    return {
      ...ours,
      items: { ...items, properties: { ...properties, status: written }, additionalProperties: false },
    };
  }
  if (name === "wallets" && properties !== undefined) {
    return { ...ours, items: { ...items, properties: { ...properties, amount }, additionalProperties: false } };
  }
  if (kind === "webhook" && name === "balance") return amount;
  if (kind === "error" && name === "errors" && items !== undefined) {
    return { ...ours, items: { ...items, additionalProperties: false } };
  }
  return ours;
}

/** The balance's `status`, our Success (20), as the dialect's table writes it: its code, or its word. */
function balanceStatusSchema(table: readonly DialectStatusEntry[] | undefined, values: "code" | "word"): JsonSchema {
  const ok = table === undefined ? undefined : mapStatuses(table)(BALANCE_OK_STATUS);
  if (ok === undefined) return { type: "integer", const: BALANCE_OK_STATUS };
  return values === "word" && ok.word !== undefined
    ? { type: "string", const: ok.word }
    : { type: "integer", const: ok.code };
}

/** A container being built: an object's members or an array's items, by key. */
interface Node {
  readonly kind: ContainerKind;
  readonly children: Map<string, Node | JsonSchema>;
  /** Members our spec writes only sometimes (a problem's `errors`): placed, not required. */
  readonly optional: Set<string>;
}

/** A schema placed at a pointer; `optional` when the body holds it only sometimes. */
type Placed = readonly [pointer: string, schema: JsonSchema, optional?: boolean];

/** The node's JSON Schema: an object with its members required, or an array with its items in place. */
function nodeSchema(node: Node): JsonSchema {
  const entries = [...node.children];
  const schemaOf = (child: Node | JsonSchema) => (isNode(child) ? nodeSchema(child) : child);
  if (node.kind === "object") {
    return {
      type: "object",
      properties: Object.fromEntries(entries.map(([key, child]) => [key, schemaOf(child)])),
      required: entries.flatMap(([key]) => (node.optional.has(key) ? [] : [key])),
      additionalProperties: false,
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
function bodySchema(placed: readonly Placed[], kindOf: KindOf): JsonSchema {
  const root: Node = { kind: "object", children: new Map(), optional: new Set() };
  for (const [pointer, schema, optional] of placed) {
    const keys = pointerKeys(pointer);
    let node = root;
    keys.forEach((key, index) => {
      if (index === keys.length - 1) {
        node.children.set(key, schema);
        if (optional === true) node.optional.add(key);
        return;
      }
      const next = node.children.get(key);
      if (next !== undefined && isNode(next)) {
        node = next;
        return;
      }
      const created: Node = { kind: kindOf(keys, index + 1), children: new Map(), optional: new Set() };
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
  const values: DialectValues = { written, amount, balanceStatus: balanceStatusSchema(table, statusValues) };
  const text = { type: "string" };
  const kept = (kind: PassthroughKind): Placed[] => {
    const given = file?.bodies?.[kind] as { passthrough?: Record<string, string> } | undefined;
    const { required } = ourMembers(kind);
    return Object.entries(given?.passthrough ?? {}).map(([name, pointer]) => [
      pointer,
      keptSchema(kind, name, values),
      !required.includes(name),
    ]);
  };
  const templates = (kind: keyof NonNullable<ProviderProfile["bodies"]>): Placed[] =>
    Object.entries((file?.bodies?.[kind]?.extra ?? {}) as Record<string, Extra>).map(([pointer, template]) => [
      pointer,
      extraSchema(template),
    ]);
  const extras = (kind: keyof NonNullable<ProviderProfile["bodies"]>): Placed[] => [
    ...templates(kind),
    ...(kind === "order" ? [] : kept(kind)),
  ];
  const orderWithoutId: Placed[] = [
    [bodies.order.reference, text],
    [bodies.order.status, codes],
    [bodies.order.message, text],
  ];
  // A failed order is the order's layout merged with an error's code (and, in a provider's own error body, its message).
  const specError = bodies.error.code === "/code" && bodies.error.message === "/detail";
  const failure: Placed[] = [
    [bodies.error.code, text],
    ...templates("error"),
    ...(specError ? [] : [[bodies.error.message, text] as const]),
  ];
  const deliveryId = profile.resolved.deliveryId;
  const kindOf = (kind: keyof NonNullable<ProviderProfile["bodies"]>) =>
    compileKindOf(file?.bodies?.[kind]?.containers);
  return {
    order: bodySchema([[bodies.order.id, text], ...orderWithoutId, ...extras("order")], kindOf("order")),
    insufficient: bodySchema([...orderWithoutId, ...templates("order"), ...failure], kindOf("order")),
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
    error: bodySchema([[bodies.error.code, text], ...extras("error"), [bodies.error.message, text]], kindOf("error")),
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
