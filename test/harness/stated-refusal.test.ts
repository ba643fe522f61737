/**
 * `refusalMismatch`: what a profile states about a refusal is judged, and
 * only that; an order placed is never a refusal.
 */
import { describe, expect, test } from "vitest";
import { compileProfile } from "../../src/contract/provider-profile/compile.ts";
import { refusalMismatch, statedRefusal } from "../../src/harness/stated-refusal.ts";

const nothing = { status: undefined, code: undefined };

describe("refusalMismatch", () => {
  test("with nothing stated, any 4xx is a refusal, and a failed order only where it counts", () => {
    expect(refusalMismatch(nothing, { status: 418, code: undefined, hasId: false })).toBeUndefined();
    expect(refusalMismatch(nothing, { status: 200, code: undefined, hasId: false })).toMatch(/expected a refusal/);
    expect(refusalMismatch(nothing, { status: 200, code: undefined, hasId: false }, true)).toBeUndefined();
    expect(refusalMismatch(nothing, { status: 503, code: "down", hasId: false })).toMatch(/got HTTP 503 down/);
  });

  test("a stated status and code are both demanded", () => {
    const stated = { status: 422, code: "INVALID" };
    expect(refusalMismatch(stated, { status: 422, code: "INVALID", hasId: false })).toBeUndefined();
    expect(refusalMismatch(stated, { status: 400, code: "INVALID", hasId: false })).toBe(
      "expected HTTP 422, got HTTP 400 INVALID",
    );
    expect(refusalMismatch(stated, { status: 422, code: "OTHER", hasId: false })).toBe(
      "expected error code INVALID, got HTTP 422 OTHER",
    );
  });

  test("an answer with an id placed an order, whatever the stated status", () => {
    const failedOrder = { status: 200, code: undefined };
    expect(refusalMismatch(failedOrder, { status: 200, code: undefined, hasId: true }, true)).toMatch(
      /an order was placed/,
    );
  });
});

describe("statedRefusal", () => {
  test("reads only what the file states, never our spec's defaults", () => {
    expect(statedRefusal(compileProfile(), "invalidInput")).toEqual(nothing);
    const profile = compileProfile({ profile: 1, http: { invalidInput: 422 }, errorCodes: { notFound: "NOPE" } });
    expect(statedRefusal(profile, "invalidInput")).toEqual({ status: 422, code: undefined });
    expect(statedRefusal(profile, "notFound")).toEqual({ status: undefined, code: "NOPE" });
  });

  test("a wrong method has a stated status and never a code; an insufficient balance has both", () => {
    const profile = compileProfile({
      profile: 1,
      http: { wrongMethod: 404, insufficientBalance: 200 },
      errorCodes: { notFound: "NOT_FOUND", insufficientBalance: "NO_FUNDS" },
    });
    expect(statedRefusal(profile, "wrongMethod")).toEqual({ status: 404, code: undefined });
    expect(statedRefusal(profile, "insufficientBalance")).toEqual({ status: 200, code: "NO_FUNDS" });
  });
});
