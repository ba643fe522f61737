/**
 * The negative inputs come from the request schema's own constraints, and
 * every one of them really is invalid by that schema (a generator of "invalid"
 * bodies that produced valid ones would accuse a correct target).
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { SendAirtimeRequestSchema } from "../../src/contract/public-schemas.ts";
import { defaultRecipients } from "../../src/harness/accounts.ts";
import {
  fieldViolations,
  negativeCaseArbitrary,
  REFERENCE_SLOT,
  requestConstraints,
  requestedCents,
} from "../../src/harness/properties/negative-cases.ts";

describe("negative cases from the request schema", () => {
  test("every constraint of the schema yields a violation", () => {
    const { fields, required } = requestConstraints();
    const what = fieldViolations().map((v) => v.what);
    for (const field of required) expect(what).toContain(`without required ${field}`);
    expect(what).toContain(
      `amount ${(fields.amount?.minimum ?? 0) - 0.01} below the minimum ${fields.amount?.minimum}`,
    );
    expect(what.some((w) => w.startsWith("amount") && w.includes("above the maximum 10000"))).toBe(true);
    expect(what.some((w) => w.startsWith("currency") && w.includes("outside the enum"))).toBe(true);
    expect(what.some((w) => w.startsWith("service") && w.includes("outside the enum"))).toBe(true);
    expect(what).toContain("idempotencyKey of 256 characters (max 255)");
    expect(what.some((w) => w.startsWith("account") && w.includes("not matching"))).toBe(true);
    expect(what.some((w) => w.startsWith("reference") && w.includes("not matching"))).toBe(true);
  });

  test("every generated JSON object body is rejected by the schema itself", () => {
    fc.assert(
      fc.property(negativeCaseArbitrary(defaultRecipients(), 500_000), (negative) => {
        let body: unknown;
        try {
          body = JSON.parse(negative.body.replaceAll(REFERENCE_SLOT, "ref-1"));
        } catch {
          return; // malformed JSON: invalid by construction
        }
        const headerOnly = Object.keys(negative.headers).length > 0 || negative.contentType !== "application/json";
        const oversized = negative.body.length > 64 * 1024;
        if (headerOnly || oversized) return; // invalid by its headers or size, not its fields
        expect(SendAirtimeRequestSchema.safeParse(body).success).toBe(false);
      }),
      { numRuns: 300, seed: 1 },
    );
  });

  test("the budget sees the amount a case asks for", () => {
    expect(requestedCents(JSON.stringify({ amount: 12.5, reference: REFERENCE_SLOT }))).toBe(1250);
    expect(requestedCents(JSON.stringify({ amount: "12" }))).toBe(0);
    expect(requestedCents("{")).toBe(0);
  });
});
