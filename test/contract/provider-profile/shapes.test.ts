/**
 * Exact shapes: a container the renderer creates for an index segment is an
 * array, as a provider writes `{"balances":[{…}]}`, unless the profile states
 * the container's kind; the dialect's schemas describe the same shape.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, test } from "vitest";
import { dialectSchemas } from "../../../src/contract/provider-profile/dialect-schemas.ts";
import { compileRenderer } from "../../../src/contract/provider-profile/render.ts";
import type { ProviderProfile } from "../../../src/contract/provider-profile/schema.ts";

const ARRAYS: ProviderProfile = {
  profile: 1,
  bodies: {
    balance: { amount: "/balances/0/available" },
    error: { code: "/errors/0/code", message: "/errors/0/message" },
  },
};

function validatorOf(schema: Record<string, unknown>) {
  const ajv = new Ajv2020({ strict: true, strictRequired: false, strictTypes: false });
  addFormats.default(ajv);
  return ajv.compile(schema);
}

const SPEC_BALANCE = { status: 20, amount: 250, currency: "KES", shortcode: null, wallets: [] };
const PROBLEM = {
  type: "t",
  title: "Bad",
  status: 400,
  detail: "amount too low",
  instance: "/x",
  code: "validation_failed",
};

describe("index segments", () => {
  const render = compileRenderer(ARRAYS, { newUuid: () => "uuid" });

  test("the balance's container at an index segment is an array, read back as body.balances[0]", () => {
    const body = render.balance(SPEC_BALANCE) as { balances: Array<{ available: number }> };
    expect(Array.isArray(body.balances)).toBe(true);
    expect(body.balances[0]?.available).toBe(250);
    expect(validatorOf(dialectSchemas(ARRAYS).balance)(body)).toBe(true);
  });

  test("the error's code and message share one array item", () => {
    const { body } = render.error(PROBLEM) as { body: { errors: unknown[] } };
    expect(Array.isArray(body.errors)).toBe(true);
    expect(body.errors[0]).toMatchObject({ code: "validation_failed", message: "amount too low" });
    expect(validatorOf(dialectSchemas(ARRAYS).error)(body)).toBe(true);
  });

  test("the schema refuses an object keyed by the index, which is what a client's .map breaks on", () => {
    const validate = validatorOf(dialectSchemas(ARRAYS).balance);
    expect(validate({ balances: { 0: { available: 250 } } })).toBe(false);
  });
});

describe("a stated container kind", () => {
  const KEYED: ProviderProfile = {
    profile: 1,
    bodies: { balance: { amount: "/wallets/0/available", containers: { "/wallets": "object" } } },
  };

  test("an object keyed by the index where the profile states it, and the schema says so too", () => {
    const body = compileRenderer(KEYED, { newUuid: () => "uuid" }).balance(SPEC_BALANCE);
    expect(body).toMatchObject({ wallets: { 0: { available: 250 } } });
    expect(Array.isArray((body as { wallets: unknown }).wallets)).toBe(false);
    expect(validatorOf(dialectSchemas(KEYED).balance)(body)).toBe(true);
  });
});
