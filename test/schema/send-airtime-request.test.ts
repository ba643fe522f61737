import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { z } from "zod";
import {
  ACCOUNT_FORMS,
  INVALID_FIELD_KINDS,
  type InvalidFieldKind,
  type InvalidOrder,
  invalidOrderArbitrary,
  validOrderArbitrary,
} from "../../src/contract/arbitraries.ts";
import { toCents } from "../../src/contract/money.ts";
import { SendAirtimeRequestSchema } from "../../src/contract/public-schemas.ts";

const RUNS = { numRuns: 60 };

function pointerOf(path: readonly PropertyKey[]): string {
  return ["#", ...path.map((p) => String(p).replaceAll("~", "~0").replaceAll("/", "~1"))].join("/");
}

/** A valid order parses, keeps its account as written and its amount to the cent. */
function acceptsValidOrder(schema: z.ZodType, body: Record<string, unknown>): boolean {
  const result = schema.safeParse(body);
  if (!result.success) return false;
  const data = result.data as { account: string; amount: number };
  return data.account === body.account && toCents(data.amount) === toCents(body.amount as number);
}

/** An order with one broken field is rejected, and every issue points at that field. */
function rejectsAtPointer(schema: z.ZodType, order: InvalidOrder): boolean {
  const result = schema.safeParse(order.body);
  return !result.success && result.error.issues.every((issue) => pointerOf(issue.path) === order.pointer);
}

/** The same rule over JSON: what survives a round trip through JSON is still rejected at the same field. */
function rejectsAfterJson(schema: z.ZodType, order: InvalidOrder): boolean {
  return rejectsAtPointer(schema, { ...order, body: JSON.parse(JSON.stringify(order.body)) });
}

describe("valid orders", () => {
  test.prop([validOrderArbitrary()], RUNS)("parse in every number form and service spelling", (order) => {
    expect(acceptsValidOrder(SendAirtimeRequestSchema, order.body)).toBe(true);
  });

  test.prop([fc.constantFrom(...ACCOUNT_FORMS).chain((form) => validOrderArbitrary().filter((o) => o.form === form))], {
    numRuns: 40,
  })("parse whichever of the four forms the account is written in", (order) => {
    expect(SendAirtimeRequestSchema.safeParse(order.body).success).toBe(true);
  });

  test.prop([validOrderArbitrary()], RUNS)("survive a JSON round trip unchanged", (order) => {
    const roundTripped = JSON.parse(JSON.stringify(order.body));
    expect(SendAirtimeRequestSchema.parse(roundTripped)).toEqual(SendAirtimeRequestSchema.parse(order.body));
  });
});

describe("invalid orders are rejected at the offending field", () => {
  const byKind = (kinds: readonly InvalidFieldKind[]) => invalidOrderArbitrary({ kinds });

  test.prop([byKind(["amount_zero", "amount_negative"])], RUNS)("zero and negative amounts", (order) => {
    expect(rejectsAfterJson(SendAirtimeRequestSchema, order)).toBe(true);
  });

  test.prop([byKind(["amount_three_decimals"])], RUNS)("amounts with three decimals", (order) => {
    expect(rejectsAfterJson(SendAirtimeRequestSchema, order)).toBe(true);
  });

  test.prop([byKind(["amount_below_min", "amount_above_max"])], RUNS)("amounts out of range", (order) => {
    expect(rejectsAfterJson(SendAirtimeRequestSchema, order)).toBe(true);
  });

  // JSON has no NaN or Infinity: checked against the schema itself.
  test.prop([byKind(["amount_nan", "amount_infinity", "amount_not_a_number"])], RUNS)(
    "NaN, Infinity and non-numbers",
    (order) => {
      expect(rejectsAtPointer(SendAirtimeRequestSchema, order)).toBe(true);
    },
  );

  test.prop([byKind(["idempotency_key_too_long", "idempotency_key_not_visible_ascii", "idempotency_key_empty"])], RUNS)(
    "idempotency keys over 255 characters, empty, or with characters that are not visible ASCII",
    (order) => {
      expect(rejectsAfterJson(SendAirtimeRequestSchema, order)).toBe(true);
    },
  );

  test.prop([byKind(["service_unknown", "network_unknown"])], RUNS)(
    "unknown services, also through `network`",
    (order) => {
      expect(rejectsAfterJson(SendAirtimeRequestSchema, order)).toBe(true);
    },
  );

  test.prop([byKind(["currency_not_allowed"])], RUNS)("currencies other than KES", (order) => {
    expect(rejectsAfterJson(SendAirtimeRequestSchema, order)).toBe(true);
  });

  test.prop([byKind(["account_malformed", "account_missing"])], RUNS)("malformed or missing accounts", (order) => {
    expect(rejectsAfterJson(SendAirtimeRequestSchema, order)).toBe(true);
  });

  test.prop(
    [byKind(["reference_empty", "reference_too_long", "reference_control_character", "reference_missing"])],
    RUNS,
  )("empty, too long, control-character or missing references", (order) => {
    expect(rejectsAfterJson(SendAirtimeRequestSchema, order)).toBe(true);
  });

  test.prop([invalidOrderArbitrary()], RUNS)("any kind of broken field", (order) => {
    expect(rejectsAtPointer(SendAirtimeRequestSchema, order)).toBe(true);
  });
});

describe("the properties catch a schema that is deliberately wrong", () => {
  const base = SendAirtimeRequestSchema;
  const fails = <Ts extends [unknown]>(property: fc.IProperty<Ts>) =>
    fc.check(property, { numRuns: 200, seed: 42 }).failed;

  const cases: { name: string; broken: z.ZodType; kinds: readonly InvalidFieldKind[] }[] = [
    { name: "amount without bounds", broken: base.extend({ amount: z.number() }), kinds: ["amount_zero"] },
    {
      name: "amount without the two-decimals rule",
      broken: base.extend({ amount: z.number().min(10).max(10_000) }),
      kinds: ["amount_three_decimals"],
    },
    {
      name: "amount accepting NaN",
      broken: base.extend({ amount: z.nan().or(z.number().min(10)) }),
      kinds: ["amount_nan"],
    },
    {
      name: "key without a length limit",
      broken: base.extend({
        idempotencyKey: z
          .string()
          .regex(/^[\x21-\x7E]+$/)
          .optional(),
      }),
      kinds: ["idempotency_key_too_long"],
    },
    {
      name: "key accepting any character",
      broken: base.extend({ idempotencyKey: z.string().min(1).max(255).optional() }),
      kinds: ["idempotency_key_not_visible_ascii"],
    },
    {
      name: "service as free text",
      broken: base.extend({ service: z.string().optional() }),
      kinds: ["service_unknown"],
    },
    {
      name: "network as free text",
      broken: base.extend({ network: z.string().optional() }),
      kinds: ["network_unknown"],
    },
    { name: "currency as free text", broken: base.extend({ currency: z.string() }), kinds: ["currency_not_allowed"] },
    {
      name: "errors reported on the whole body instead of the field",
      broken: z.unknown().superRefine((value, ctx) => {
        const result = base.safeParse(value);
        if (!result.success) ctx.addIssue({ code: "custom", message: "invalid body", path: [] });
      }),
      kinds: INVALID_FIELD_KINDS,
    },
  ];

  for (const { name, broken, kinds } of cases) {
    test(`rejection property fails for: ${name}`, () => {
      const property = fc.property(invalidOrderArbitrary({ kinds }), (order) => rejectsAtPointer(broken, order));
      expect(fails(property)).toBe(true);
    });
  }

  test("valid-order property fails for a schema that only accepts E.164 accounts", () => {
    const broken = base.extend({ account: z.string().regex(/^\+254[17]\d{8}$/) });
    const property = fc.property(validOrderArbitrary(), (order) => acceptsValidOrder(broken, order.body));
    expect(fails(property)).toBe(true);
  });

  test("valid-order property fails for a schema that rounds amounts to whole shillings", () => {
    const broken = base.extend({ amount: z.number().transform(Math.round) });
    const property = fc.property(validOrderArbitrary(), (order) => acceptsValidOrder(broken, order.body));
    expect(fails(property)).toBe(true);
  });
});
