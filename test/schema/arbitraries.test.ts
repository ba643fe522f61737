import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import {
  ACCOUNT_FORMS,
  amountArbitrary,
  INVALID_FIELD_KINDS,
  invalidIdempotencyKeyHeaderArbitrary,
  invalidOrderArbitrary,
  referenceArbitrary,
  SERVICE_FIELDS,
  validOrderArbitrary,
} from "../../src/contract/arbitraries.ts";
import { hasAtMostTwoDecimals } from "../../src/contract/money.ts";
import { detectService, parseKenyanMobile, SERVICES } from "../../src/contract/operators.ts";
import { IDEMPOTENCY_KEY_PATTERN } from "../../src/contract/public-schemas.ts";

const SAMPLE = { numRuns: 400, seed: 2026 };

describe("validOrderArbitrary", () => {
  const orders = fc.sample(validOrderArbitrary(), SAMPLE);

  test("covers every number form, service spelling and operator, with and without a body key", () => {
    expect(new Set(orders.map((o) => o.form))).toEqual(new Set(ACCOUNT_FORMS));
    expect(new Set(orders.map((o) => o.serviceField))).toEqual(new Set(SERVICE_FIELDS));
    expect(new Set(orders.map((o) => o.service))).toEqual(new Set(SERVICES));
    expect(orders.some((o) => o.body.idempotencyKey !== undefined)).toBe(true);
    expect(orders.some((o) => o.body.idempotencyKey === undefined)).toBe(true);
  });

  test.prop([validOrderArbitrary()], { numRuns: 100 })("states the service the simulator must resolve", (order) => {
    const detected = detectService(parseKenyanMobile(order.body.account)!.nsn);
    switch (order.serviceField) {
      case "service":
        expect(order.body.service).toBe(order.service);
        expect(order.body.network).toBeUndefined();
        break;
      case "network":
        expect(order.body.network).toBe(order.service);
        expect(order.body.service).toBeUndefined();
        break;
      case "detected":
        expect(order.body.service ?? order.body.network).toBeUndefined();
        expect(detected).toBe(order.service);
        break;
    }
  });

  test.prop(
    [validOrderArbitrary({ accounts: ["0744123456", "+254712000001"], shortcodes: ["600100"], bodyKey: "always" })],
    {
      numRuns: 50,
    },
  )("honours an account allow-list, wallet shortcodes and the key option", (order) => {
    expect(["0744123456", "+254712000001"]).toContain(order.body.account);
    expect([undefined, "600100"]).toContain(order.body.shortcode);
    expect(order.body.idempotencyKey).toBeDefined();
    // 0744 belongs to none of the five operators: the order must name its service.
    if (order.body.account === "0744123456") expect(order.serviceField).not.toBe("detected");
  });
});

describe("field generators", () => {
  test.prop([amountArbitrary({ minAmount: 10, maxAmount: 10_000, currencies: ["KES"] })], { numRuns: 200 })(
    "amounts stay in range with at most two decimals",
    (amount) => {
      expect(amount).toBeGreaterThanOrEqual(10);
      expect(amount).toBeLessThanOrEqual(10_000);
      expect(hasAtMostTwoDecimals(amount)).toBe(true);
    },
  );

  test.prop([referenceArbitrary], { numRuns: 200 })("references round-trip through percent-encoding", (reference) => {
    expect(decodeURIComponent(encodeURIComponent(reference))).toBe(reference);
  });

  test.prop([invalidIdempotencyKeyHeaderArbitrary], { numRuns: 100 })(
    "invalid header keys are invalid and still sendable as a header",
    (key) => {
      expect(IDEMPOTENCY_KEY_PATTERN.test(key)).toBe(false);
      expect(() => new Headers({ "idempotency-key": key })).not.toThrow();
      expect(key.trim()).toBe(key);
    },
  );
});

describe("invalidOrderArbitrary", () => {
  test("produces every kind, each breaking the field its pointer names", () => {
    const orders = fc.sample(invalidOrderArbitrary(), { numRuns: 600, seed: 7 });
    expect(new Set(orders.map((o) => o.kind))).toEqual(new Set(INVALID_FIELD_KINDS));
    for (const order of orders) {
      expect(order.pointer).toBe(
        `#/${order.kind.startsWith("idempotency_key") ? "idempotencyKey" : order.kind.split("_")[0]}`,
      );
      expect(order.jsonSafe).toBe(!["amount_nan", "amount_infinity"].includes(order.kind));
    }
  });
});
