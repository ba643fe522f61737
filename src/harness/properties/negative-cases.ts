/**
 * Invalid send-airtime requests, generated from the request schema's own
 * constraints: its JSON Schema (types, required fields, enums, bounds,
 * lengths, patterns) is walked and each constraint yields values that break
 * it; the contract's own generators add one-broken-field orders and invalid
 * key headers; the request-level cases (malformed JSON, media type, size,
 * conflicting keys) and the rule JSON Schema cannot express (at most two
 * decimals) are added by hand. Each case says which statuses and codes a correct target
 * may answer.
 */
import fc from "fast-check";
import { z } from "zod";
import {
  INVALID_FIELD_KINDS,
  type InvalidFieldKind,
  invalidIdempotencyKeyHeaderArbitrary,
  invalidOrderArbitrary,
} from "../../contract/arbitraries.ts";
import { hasAtMostTwoDecimals } from "../../contract/money.ts";
import { DEFAULT_ORDER_LIMITS, SendAirtimeRequestSchema } from "../../contract/public-schemas.ts";
import type { Recipient } from "../accounts.ts";

/**
 * The amounts a valid order may ask for: the provider profile's stated
 * domain, else our spec's. Every case is built on an order inside it, so a
 * target that refuses a case does so for the broken part, never because the
 * order beneath it was already out of its range (a 20 KES minimum would
 * otherwise hide a missing-field defect under every 10 KES case).
 */
export interface AmountDomain {
  readonly minAmount: number;
  readonly maxAmount: number;
  /** Decimal places an amount may have. */
  readonly decimals: number;
}

/** Our spec's amounts: KES 10 to 10,000, at most two decimals. */
export const SPEC_AMOUNTS: AmountDomain = { ...DEFAULT_ORDER_LIMITS, decimals: 2 };

/** Replaced by a fresh reference when the case is sent. */
export const REFERENCE_SLOT = "@@REFERENCE@@";

export interface NegativeCase {
  readonly label: string;
  /** The body text; REFERENCE_SLOT stands for a fresh reference. */
  readonly body: string;
  readonly contentType: string;
  /** Extra headers (e.g. an Idempotency-Key). */
  readonly headers: Readonly<Record<string, string>>;
  readonly expectStatus: readonly number[];
  readonly expectCodes: readonly string[];
  /** True when the body still carries a valid fresh reference: no order may exist under it afterwards. */
  readonly referenceIntact: boolean;
  /** The field §2.1's table requires that this body leaves out: invalid by the interface itself, not only by our spec. */
  readonly missingRequired?: string;
}

/**
 * The fields §2.1 marks required, but `service`: the interface allows it to
 * be detected from the account when omitted.
 */
const INTERFACE_REQUIRED: ReadonlySet<string> = new Set(["account", "amount", "currency", "reference"]);

interface JsonSchemaNode {
  readonly type?: string;
  readonly enum?: readonly unknown[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly $ref?: string | undefined;
  readonly properties?: Readonly<Record<string, JsonSchemaNode>>;
  readonly required?: readonly string[];
}

interface FieldViolation {
  readonly field: string;
  /** undefined = remove the field. */
  readonly value: unknown;
  readonly what: string;
}

/** The request schema as JSON Schema, `$ref`s resolved one level (enough for this flat object). */
export function requestConstraints(): { fields: Record<string, JsonSchemaNode>; required: readonly string[] } {
  const document = z.toJSONSchema(SendAirtimeRequestSchema, { io: "input", unrepresentable: "any" }) as {
    $ref?: string;
    $defs?: Record<string, JsonSchemaNode>;
  } & JsonSchemaNode;
  const defs = document.$defs ?? {};
  const resolve = (node: JsonSchemaNode): JsonSchemaNode => {
    const name = node.$ref?.replace(/^#\/\$defs\//, "");
    return name === undefined ? node : { ...(defs[name] ?? {}), ...node, $ref: undefined };
  };
  const root = resolve(document);
  const fields: Record<string, JsonSchemaNode> = {};
  for (const [name, node] of Object.entries(root.properties ?? {})) fields[name] = resolve(node);
  return { fields, required: root.required ?? [] };
}

// Never a dialable number: a lax target must not be able to top up anyone with them.
const PATTERN_BREAKERS = ["", " ", "abc", "07123", "07-12", "\u0001x", "é€", "a b"];
const ENUM_BREAKERS = ["mpesa", "SAFARICOM", "usd", "kes", "KSH", ""];

/** Every way the schema's constraints can be broken, field by field; the amount's bounds are the domain's. */
export function fieldViolations(amounts: AmountDomain = SPEC_AMOUNTS): FieldViolation[] {
  const { fields, required } = requestConstraints();
  const out: FieldViolation[] = [];
  for (const [field, stated] of Object.entries(fields)) {
    const node = field === "amount" ? { ...stated, minimum: amounts.minAmount, maximum: amounts.maxAmount } : stated;
    if (required.includes(field)) out.push({ field, value: undefined, what: `without required ${field}` });
    const wrongTypes = node.type === "number" ? ["100", true, null, [], {}] : [123, true, null, {}, ["x"]];
    for (const value of wrongTypes) out.push({ field, value, what: `${field} as ${JSON.stringify(value)}` });
    for (const value of ENUM_BREAKERS) {
      if (node.enum !== undefined && !node.enum.includes(value)) {
        out.push({ field, value, what: `${field} ${JSON.stringify(value)} outside the enum` });
      }
    }
    if (node.minimum !== undefined) {
      for (const value of [node.minimum - 0.01, 0, -node.minimum]) {
        out.push({ field, value, what: `${field} ${value} below the minimum ${node.minimum}` });
      }
    }
    if (node.maximum !== undefined) {
      for (const value of [node.maximum + 0.01, node.maximum * 10]) {
        out.push({ field, value, what: `${field} ${value} above the maximum ${node.maximum}` });
      }
    }
    if (node.minLength !== undefined && node.minLength > 0) out.push({ field, value: "", what: `${field} empty` });
    if (node.maxLength !== undefined) {
      out.push({
        field,
        value: "k".repeat(node.maxLength + 1),
        what: `${field} of ${node.maxLength + 1} characters (max ${node.maxLength})`,
      });
    }
    if (node.pattern !== undefined) {
      const pattern = new RegExp(node.pattern, "u");
      for (const value of PATTERN_BREAKERS.filter((candidate) => !pattern.test(candidate))) {
        out.push({ field, value, what: `${field} ${JSON.stringify(value)} not matching ${node.pattern}` });
      }
    }
  }
  return out;
}

/** Which code a correct target gives a field violation. */
function codesFor(field: string): readonly string[] {
  return field === "idempotencyKey" ? ["invalid_idempotency_key", "validation_failed"] : ["validation_failed"];
}

interface BaseOrder {
  readonly recipient: Recipient;
  readonly amount: number;
  readonly withService: boolean;
}

function baseBody(base: BaseOrder): Record<string, unknown> {
  return {
    account: base.recipient.account,
    amount: base.amount,
    currency: "KES",
    reference: REFERENCE_SLOT,
    ...(base.withService ? { service: base.recipient.service } : {}),
  };
}

const JSON_TYPE = "application/json";

function fieldCase(base: BaseOrder, violation: FieldViolation): NegativeCase {
  const body = baseBody(base);
  if (violation.value === undefined) delete body[violation.field];
  else body[violation.field] = violation.value;
  return {
    label: violation.what,
    body: JSON.stringify(body),
    contentType: JSON_TYPE,
    headers: {},
    expectStatus: [400],
    expectCodes: codesFor(violation.field),
    referenceIntact: violation.field !== "reference",
    ...(violation.value === undefined && INTERFACE_REQUIRED.has(violation.field)
      ? { missingRequired: violation.field }
      : {}),
  };
}

const MALFORMED_BODIES = (text: string): string[] => [
  "{",
  text.slice(0, -1),
  `${text.slice(0, -1)},}`,
  "{'account': 1}",
  "not json",
  '{"amount": NaN}',
];
const NON_OBJECT_BODIES = (text: string): string[] => ["[]", "42", '"text"', "null", "true", `[${text}]`];

function malformedCases(base: BaseOrder): NegativeCase[] {
  return MALFORMED_BODIES(JSON.stringify(baseBody(base))).map((raw) => ({
    label: `malformed JSON ${JSON.stringify(raw.slice(0, 30))}`,
    body: raw,
    contentType: JSON_TYPE,
    headers: {},
    expectStatus: [400],
    expectCodes: ["malformed_json"],
    referenceIntact: raw.includes(REFERENCE_SLOT),
  }));
}

function nonObjectCases(base: BaseOrder): NegativeCase[] {
  return NON_OBJECT_BODIES(JSON.stringify(baseBody(base))).map((raw) => ({
    label: `body ${raw.slice(0, 20)} instead of an object`,
    body: raw,
    contentType: JSON_TYPE,
    headers: {},
    expectStatus: [400],
    expectCodes: ["malformed_json", "validation_failed"],
    referenceIntact: raw.includes(REFERENCE_SLOT),
  }));
}

/** Request-level cases and the rules JSON Schema cannot say. */
function requestCases(base: BaseOrder): NegativeCase[] {
  const body = baseBody(base);
  const text = JSON.stringify(body);
  const threeDecimals = Math.round(base.amount * 100) / 100 + 0.005;
  if (hasAtMostTwoDecimals(threeDecimals)) throw new Error("the three-decimal amount has two decimals");
  return [
    {
      label: `amount ${threeDecimals} with three decimals`,
      body: JSON.stringify({ ...body, amount: threeDecimals }),
      contentType: JSON_TYPE,
      headers: {},
      expectStatus: [400],
      expectCodes: ["validation_failed"],
      referenceIntact: true,
    },
    {
      label: "Content-Type text/plain",
      body: text,
      contentType: "text/plain",
      headers: {},
      expectStatus: [415],
      expectCodes: ["unsupported_media_type"],
      referenceIntact: true,
    },
    {
      label: "a body over 64 KiB",
      body: `${text.slice(0, -1)}${" ".repeat(70 * 1024)}}`,
      contentType: JSON_TYPE,
      headers: {},
      expectStatus: [413],
      expectCodes: ["payload_too_large"],
      referenceIntact: true,
    },
    {
      label: "header and body idempotency keys that differ",
      body: JSON.stringify({ ...body, idempotencyKey: "body-key-1" }),
      contentType: JSON_TYPE,
      headers: { "idempotency-key": "header-key-2" },
      expectStatus: [400],
      expectCodes: ["idempotency_key_conflict"],
      referenceIntact: true,
    },
  ];
}

/** Invalid `Idempotency-Key` headers (the contract's generator): too long, or with characters outside visible ASCII. */
function headerKeyCases(base: BaseOrder): fc.Arbitrary<NegativeCase> {
  return invalidIdempotencyKeyHeaderArbitrary.map((key) => ({
    label: `an Idempotency-Key header of ${key.length} characters ${JSON.stringify(key.slice(0, 24))}…`,
    body: JSON.stringify(baseBody(base)),
    contentType: JSON_TYPE,
    headers: { "idempotency-key": key },
    expectStatus: [400],
    expectCodes: ["invalid_idempotency_key"],
    referenceIntact: true,
  }));
}

/** Account breakages the contract's generator can produce that look like real foreign numbers. */
const DIALABLE_KINDS: readonly InvalidFieldKind[] = ["account_malformed"];

/**
 * The contract's one-broken-field orders, re-based on an allowed recipient,
 * the case's amount and a fresh reference wherever the broken field is not
 * one of those.
 */
function brokenFieldCases(base: BaseOrder, amounts: AmountDomain): fc.Arbitrary<NegativeCase> {
  const kinds = INVALID_FIELD_KINDS.filter((kind) => !DIALABLE_KINDS.includes(kind));
  const limits = { ...DEFAULT_ORDER_LIMITS, minAmount: amounts.minAmount, maxAmount: amounts.maxAmount };
  return invalidOrderArbitrary({ kinds, limits })
    .filter((invalid) => invalid.jsonSafe)
    .map((invalid) => {
      const field = invalid.pointer.slice(2);
      const body: Record<string, unknown> = { ...invalid.body };
      if (field !== "account") {
        body.account = base.recipient.account;
        delete body.service;
        delete body.network;
        if (base.withService) body.service = base.recipient.service;
      }
      if (field !== "amount") body.amount = base.amount;
      if (field !== "reference") body.reference = REFERENCE_SLOT;
      if (field === "service" || field === "network") body[field] = invalid.body[field];
      return {
        label: `${invalid.kind.replaceAll("_", " ")}: ${field} = ${JSON.stringify(invalid.body[field] ?? "(absent)").slice(0, 60)}`,
        body: JSON.stringify(body),
        contentType: JSON_TYPE,
        headers: {},
        expectStatus: [400],
        expectCodes: codesFor(field),
        referenceIntact: field !== "reference",
      };
    });
}

/**
 * The base order's amount, in cents: inside the domain, written with no
 * more decimals than it allows, and no more than `maxAmountCents` (the
 * run's largest order).
 */
function baseAmountArbitrary(amounts: AmountDomain, maxAmountCents: number): fc.Arbitrary<number> {
  const step = 10 ** Math.max(0, 2 - amounts.decimals);
  const lowest = Math.ceil((amounts.minAmount * 100) / step);
  const highest = Math.max(lowest, Math.floor(Math.min(maxAmountCents, amounts.maxAmount * 100) / step));
  return fc.integer({ min: lowest, max: highest }).map((steps) => (steps * step) / 100);
}

/**
 * Any negative case built on a valid order for one of `recipients`, its
 * amount inside `amounts`.
 *
 * @example
 * fc.sample(negativeCaseArbitrary(defaultRecipients(), 500_00), 1)[0]?.label; // e.g. "amount 10000.01 above the maximum 10000"
 */
export function negativeCaseArbitrary(
  recipients: readonly Recipient[],
  maxAmountCents: number,
  amounts: AmountDomain = SPEC_AMOUNTS,
): fc.Arbitrary<NegativeCase> {
  const violations = fieldViolations(amounts);
  const base = fc.record({
    recipient: fc.constantFrom(...recipients),
    amount: baseAmountArbitrary(amounts, maxAmountCents),
    withService: fc.boolean(),
  });
  // Each family gets its share of runs, whatever its size.
  return base.chain((b) =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...violations).map((v) => fieldCase(b, v)) },
      { weight: 2, arbitrary: brokenFieldCases(b, amounts) },
      { weight: 2, arbitrary: fc.constantFrom(...malformedCases(b)) },
      { weight: 1, arbitrary: fc.constantFrom(...nonObjectCases(b)) },
      { weight: 2, arbitrary: fc.constantFrom(...requestCases(b)) },
      { weight: 1, arbitrary: headerKeyCases(b) },
    ),
  );
}

/**
 * Every finite negative case, each once: every wrong JSON type, bound and
 * enum breaker at every field (optional ones included), each malformed and
 * non-object body class, and the request-level cases (media type, size,
 * header/body key conflict, three decimals) — built on one valid order at
 * the domain's own minimum.
 */
export function fixedNegativeCases(
  recipients: readonly Recipient[],
  amounts: AmountDomain = SPEC_AMOUNTS,
): NegativeCase[] {
  const recipient = recipients[0];
  if (recipient === undefined) return [];
  const base: BaseOrder = { recipient, amount: amounts.minAmount, withService: true };
  return [
    ...fieldViolations(amounts).map((violation) => fieldCase(base, violation)),
    ...malformedCases(base),
    ...nonObjectCases(base),
    ...requestCases(base),
  ];
}

/** The amount a case asks for, in cents (0 when it is not a positive number): the budget reserves it. */
export function requestedCents(body: string): number {
  try {
    const parsed = JSON.parse(body.replaceAll(REFERENCE_SLOT, "r")) as { amount?: unknown };
    const amount = parsed?.amount;
    return typeof amount === "number" && Number.isFinite(amount) && amount > 0 ? Math.round(amount * 100) : 0;
  } catch {
    return 0;
  }
}
