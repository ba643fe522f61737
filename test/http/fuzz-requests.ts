/**
 * Generated HTTP requests for the fuzz suites, valid and not, and the rule
 * every answer must keep: never a 5xx, every 4xx problem+json with a
 * catalogue code.
 */
import { fc } from "@fast-check/vitest";
import { BINARY_UNIT } from "../../src/contract/arbitraries.ts";
import { isErrorCode } from "../../src/contract/error-codes.ts";
import { DEMO_TOKEN } from "../support/http.ts";

export interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

export interface FuzzReply {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
}

export type Auth = "demo" | "admin" | "none" | "garbage";

const KNOWN_PATHS = [
  "/v1/airtime",
  "/v1/airtime/ref-1",
  "/v1/balance",
  "/v1/balance?shortcode=600100",
  "/v1/auth/token",
  "/_sim/reset?customer=nobody",
  "/_sim/customers",
  "/_sim/customers/demo",
  "/_sim/orders",
  "/_sim/orders?status=x",
  "/_sim/orders/ord_x/transition",
  "/_sim/clock",
  "/_sim/clock/advance",
  "/_sim/journal?limit=-1",
];

const segmentArb = fc.string({ unit: BINARY_UNIT, maxLength: 30 }).map(encodeURIComponent);
export const pathArb = fc.oneof(
  fc.constantFrom(...KNOWN_PATHS),
  fc
    .tuple(fc.constantFrom("/v1/airtime/", "/_sim/orders/", "/_sim/customers/", "/", "/v1/"), segmentArb)
    .map(([a, b]) => a + b),
  fc.array(segmentArb, { minLength: 1, maxLength: 4 }).map((parts) => `/${parts.join("/")}`),
  fc.constantFrom("/v1/airtime/%E0%A4%A", "/v1/airtime/%", "/%2e%2e/%2e%2e/etc/passwd", "/v1//airtime", "/V1/AIRTIME"),
);

/** JSON values with the keys attackers like. */
const nastyKeyArb = fc.constantFrom("__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "amount");
export const jsonArb: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.jsonValue({ maxDepth: 2 }),
    fc.string({ unit: BINARY_UNIT, maxLength: 200 }),
    fc.constantFrom(1e308, -0, 10.001, Number.MAX_SAFE_INTEGER + 2),
    fc.dictionary(fc.oneof(nastyKeyArb, fc.string({ maxLength: 8 })), tie("value"), { maxKeys: 4 }),
    fc.array(tie("value"), { maxLength: 3 }),
  ),
})).value;

/** Mostly valid, sometimes not: each field is valid four times in five, so requests reach the domain. */
export const mostly = <T, U>(valid: fc.Arbitrary<T>, invalid: fc.Arbitrary<U>) =>
  fc.oneof({ arbitrary: valid, weight: 4 }, { arbitrary: invalid, weight: 1 });

const validOrderArb = fc.record(
  {
    account: mostly(
      fc.constantFrom("0712345678", "+254733000111", "0760123456", "712345678"),
      fc.string({ maxLength: 14 }),
    ),
    amount: mostly(fc.integer({ min: 10, max: 10_000 }), fc.oneof(fc.double(), fc.string({ maxLength: 5 }))),
    currency: mostly(fc.constant("KES"), fc.constantFrom("USD", "kes", "")),
    // Small pools of references and keys make duplicates, replays and mismatches likely.
    reference: mostly(
      fc.oneof(fc.constantFrom("r-1", "r-2", "r-3"), fc.string({ minLength: 1, maxLength: 60 })),
      fc.string({ unit: BINARY_UNIT, maxLength: 120 }),
    ),
    service: fc.constantFrom("safaricom", "airtel", "telkom", "jtl", "equitel", "orange"),
    shortcode: mostly(fc.constant("600100"), fc.constantFrom("", "x".repeat(40), "123")),
    idempotencyKey: mostly(
      fc.oneof(fc.constantFrom("k-1", "k-2"), fc.uuid()),
      fc.string({ unit: BINARY_UNIT, maxLength: 300 }),
    ),
    phone: fc.string({ maxLength: 40 }),
  },
  { requiredKeys: ["account", "amount", "currency", "reference"] },
);

export const bodyArb: fc.Arbitrary<string | undefined> = fc.oneof(
  fc.constant(undefined),
  validOrderArb.map((o) => JSON.stringify(o)),
  jsonArb.map((v) => JSON.stringify(v) ?? "null"),
  fc.string({ unit: BINARY_UNIT, maxLength: 200 }),
  fc.constantFrom("{", '{"a":', "[1,2", "{'a':1}", "\u0000", '{"__proto__":{"polluted":1}}', "nul", "{}"),
  fc.integer({ min: 1, max: 3_000 }).map((n) => `{"a":${"[".repeat(n)}${"]".repeat(n)}}`),
  fc.integer({ min: 60_000, max: 70_000 }).map((n) => JSON.stringify({ reference: "x".repeat(n) })),
);

const headerNameArb = fc.oneof(
  { arbitrary: fc.constantFrom("x-sim-scenario", "accept", "x-random", "prefer"), weight: 9 },
  { arbitrary: fc.constantFrom("content-encoding"), weight: 1 },
);
export const headersArb = fc.record({
  contentType: fc.option(
    fc.constantFrom(
      "application/json",
      "application/json",
      "application/json",
      "application/json",
      "application/json; charset=utf-8",
      "application/json; charset=latin1",
      "application/merge-patch+json",
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "garbage",
    ),
    { nil: undefined },
  ),
  auth: fc.constantFrom<Auth>("demo", "admin", "none", "garbage"),
  extra: fc.dictionary(headerNameArb, fc.string({ unit: "grapheme-ascii", maxLength: 40 }), { maxKeys: 3 }),
});

export const requestArb = (adminToken: string): fc.Arbitrary<FuzzRequest> => {
  const randomRequest = fc
    .record({
      method: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "PROPFIND"),
      path: pathArb,
      headers: headersArb,
      body: bodyArb,
    })
    .map(({ method, path, headers, body }) => toRequest(method, path, headers, body, adminToken));
  const orderRequest = fc
    .record({
      order: validOrderArb,
      headers: headersArb,
      key: fc.option(mostly(fc.constantFrom("k-1", "k-2", '"k-1"'), fc.string({ maxLength: 260 })), { nil: undefined }),
    })
    .map(({ order, headers, key }) =>
      toRequest(
        "POST",
        "/v1/airtime",
        {
          ...headers,
          auth: "demo",
          contentType: "application/json",
          extra: key === undefined ? headers.extra : { ...headers.extra, "idempotency-key": key },
        },
        JSON.stringify(order),
        adminToken,
      ),
    );
  return fc.oneof({ arbitrary: randomRequest, weight: 1 }, { arbitrary: orderRequest, weight: 1 });
};

export function toRequest(
  method: string,
  path: string,
  headers: { contentType: string | undefined; auth: Auth; extra: Record<string, string> },
  body: string | undefined,
  adminToken: string,
): FuzzRequest {
  const out: Record<string, string> = { ...headers.extra };
  if (headers.contentType !== undefined) out["content-type"] = headers.contentType;
  const token = { demo: DEMO_TOKEN, admin: adminToken, none: undefined, garbage: "x y\tz" }[headers.auth];
  if (token !== undefined) out.authorization = `Bearer ${token}`;
  return body === undefined ? { method, path, headers: out } : { method, path, headers: out, body };
}

/** The rule the fuzz checks: never a 5xx; every 4xx is problem+json with a catalogue code (402 is the order envelope). */
export function violation(req: FuzzRequest, reply: FuzzReply): string | undefined {
  if (reply.status >= 500) return `5xx: ${reply.status} ${reply.text.slice(0, 200)}`;
  if (reply.status < 400 || reply.status === 402 || req.method === "HEAD") return undefined;
  if (!reply.contentType.startsWith("application/problem+json"))
    return `4xx without problem+json: ${reply.contentType}`;
  const body = JSON.parse(reply.text) as { code?: string; status?: number };
  if (body.status !== reply.status || typeof body.code !== "string" || !isErrorCode(body.code)) {
    return `bad problem body: ${reply.text.slice(0, 200)}`;
  }
  if (/\bat [\w.<>]+ \(|node:internal|\.ts:\d+/.test(reply.text)) return "stack trace in body";
  return undefined;
}
