/**
 * JSON Schemas of a dialect's bodies, built from its profile the way the
 * renderer writes them: each field at its pointer (objects made on the way
 * and required), money as a number or a decimal string, statuses as the
 * table's codes or words, `extra` fields by their template. The members
 * the profile does not name are allowed beside them.
 */
import { compileProfile } from "./compile.ts";
import type { ProviderProfile } from "./schema.ts";
import { pointerKeys } from "./body-layout.ts";

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

/** An object schema with each schema placed at its pointer. */
function bodySchema(placed: ReadonlyArray<readonly [string, JsonSchema]>): JsonSchema {
  const root: JsonSchema = { type: "object", properties: {}, required: [] };
  for (const [pointer, schema] of placed) {
    const keys = pointerKeys(pointer);
    let node = root;
    keys.forEach((key, index) => {
      const properties = node.properties as Record<string, JsonSchema>;
      const required = node.required as string[];
      if (!required.includes(key)) required.push(key);
      if (index === keys.length - 1) {
        properties[key] = schema;
        return;
      }
      properties[key] ??= { type: "object", properties: {}, required: [] };
      node = properties[key];
    });
  }
  return root;
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
  return {
    order: bodySchema([[bodies.order.id, text], ...orderWithoutId, ...extras("order")]),
    insufficient: bodySchema([...orderWithoutId, ...errorFields]),
    lookup: bodySchema([
      [bodies.lookup.id, text],
      [bodies.lookup.reference, text],
      [bodies.lookup.status, written],
      [bodies.lookup.amount, amount],
      ...extras("lookup"),
    ]),
    balance: bodySchema([[bodies.balance.amount, amount], ...extras("balance")]),
    error: bodySchema([...errorFields, [bodies.error.message, text]]),
    webhook: bodySchema([
      [bodies.webhook.id, text],
      [bodies.webhook.reference, text],
      [bodies.webhook.status, written],
      [bodies.webhook.amount, amount],
      [event.pointer, { type: "string", enum: [...event.values] }],
      ...("pointer" in deliveryId ? [[deliveryId.pointer, text] as const] : []),
      ...extras("webhook"),
    ]),
  };
}
