/**
 * An independent implementation of OpenAPI (Prism) serves and enforces
 * spec/openapi.yaml: its answers must satisfy the zod response schemas, and
 * its request validation must agree with the zod request schema.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { z } from "zod";
import {
  INVALID_FIELD_KINDS,
  invalidIdempotencyKeyHeaderArbitrary,
  invalidOrderArbitrary,
  validSendAirtimeRequestArbitrary,
} from "../../src/contract/arbitraries.ts";
import {
  BalanceResponseSchema,
  FailedOrderResponseSchema,
  ProblemSchema,
  SendAirtimeResponseSchema,
  TransactionStatusResponseSchema,
} from "../../src/contract/public-schemas.ts";
import type { PrismProcess } from "../../src/harness/prism.ts";
import { PUBLIC_SPEC, startPrism } from "../support/processes.ts";

const AUTH = { authorization: "Bearer test-token" };
const ORDER = { account: "0712345678", amount: 100, currency: "KES", reference: "ORDER-1" };

let prism: PrismProcess;
let baseUrl: string;

beforeAll(async () => {
  prism = await startPrism(["mock", PUBLIC_SPEC]);
  baseUrl = prism.url;
});

afterAll(async () => {
  await prism?.close();
});

async function call(
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: unknown }> {
  const response = await fetch(baseUrl + path, {
    method,
    headers: {
      ...AUTH,
      ...(options.body === undefined ? {} : { "content-type": "application/json" }),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === "" ? undefined : JSON.parse(text) };
}

function expectParses(schema: z.ZodType, body: unknown): void {
  const result = schema.safeParse(body);
  expect(result.success, result.error?.message).toBe(true);
}

describe("prism mock spec/openapi.yaml answers", () => {
  test("POST /v1/airtime with a send-airtime response", async () => {
    const { status, body } = await call("POST", "/v1/airtime", { body: ORDER });
    expect(status).toBe(200);
    expectParses(SendAirtimeResponseSchema, body);
  });

  test("GET /v1/airtime/{reference} with a transaction status, for a percent-encoded reference too", async () => {
    for (const reference of ["ORDER-2026-0001", encodeURIComponent("order/7 #a%b é")]) {
      const { status, body } = await call("GET", `/v1/airtime/${reference}`);
      expect(status).toBe(200);
      expectParses(TransactionStatusResponseSchema, body);
    }
  });

  test("GET /v1/balance with a balance, with and without ?shortcode", async () => {
    for (const path of ["/v1/balance", "/v1/balance?shortcode=600100"]) {
      const { status, body } = await call("GET", path);
      expect(status).toBe(200);
      expectParses(BalanceResponseSchema, body);
    }
  });

  test("every declared response of POST /v1/airtime (Prefer: code=N) with a body its zod schema accepts", async () => {
    for (const code of [200, 400, 401, 402, 409, 413, 415, 429, 500, 502, 503]) {
      const { status, headers, body } = await call("POST", "/v1/airtime", {
        body: ORDER,
        headers: { prefer: `code=${code}` },
      });
      expect(status).toBe(code);
      if (code === 200) expectParses(SendAirtimeResponseSchema, body);
      else if (code === 402) expectParses(FailedOrderResponseSchema, body);
      else {
        expect(headers.get("content-type")).toContain("application/problem+json");
        expectParses(ProblemSchema, body);
        expect((body as { status: number }).status).toBe(code);
      }
    }
  });
});

describe("prism rejects what the request schema rejects", () => {
  test("an unknown service: 400 with a problem body", async () => {
    const { status, headers, body } = await call("POST", "/v1/airtime", { body: { ...ORDER, service: "orange" } });
    expect(status).toBe(400);
    expectParses(ProblemSchema, body);
    expect(headers.get("sl-violations")).toContain("service");
  });

  test("a request without a bearer token: 401", async () => {
    const { status, body } = await call("POST", "/v1/airtime", { body: ORDER, headers: { authorization: "" } });
    expect(status).toBe(401);
    expectParses(ProblemSchema, body);
  });

  test("generated valid orders are all accepted", async () => {
    await fc.assert(
      fc.asyncProperty(validSendAirtimeRequestArbitrary(), async (order) => {
        const { status, headers } = await call("POST", "/v1/airtime", { body: order });
        expect(headers.get("sl-violations")).toBeNull();
        expect(status).toBe(200);
      }),
      { numRuns: 30 },
    );
  });

  // The two-decimals rule is a zod refinement JSON Schema cannot state, and NaN/Infinity cannot travel as JSON.
  const EXPRESSIBLE_IN_JSON_SCHEMA = INVALID_FIELD_KINDS.filter(
    (kind) => !["amount_three_decimals", "amount_nan", "amount_infinity"].includes(kind),
  );

  test("generated orders with one broken field are rejected with 4xx, naming the field", async () => {
    await fc.assert(
      fc.asyncProperty(invalidOrderArbitrary({ kinds: EXPRESSIBLE_IN_JSON_SCHEMA }), async (order) => {
        const { status, headers } = await call("POST", "/v1/airtime", { body: order.body });
        expect(status).toBeGreaterThanOrEqual(400);
        expect(status).toBeLessThan(500);
        const field = order.pointer.slice(2);
        expect(headers.get("sl-violations") ?? "").toContain(field);
      }),
      { numRuns: 40 },
    );
  });

  test("invalid Idempotency-Key headers are rejected", async () => {
    await fc.assert(
      fc.asyncProperty(invalidIdempotencyKeyHeaderArbitrary, async (key) => {
        const { status } = await call("POST", "/v1/airtime", {
          body: ORDER,
          headers: { "idempotency-key": key },
        });
        expect(status).toBe(400);
      }),
      { numRuns: 15 },
    );
  });
});
