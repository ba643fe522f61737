/**
 * The admin API's own routes (`/_sim/…`), each declared once: the admin
 * document is generated from them (with the plugins' routes), and the HTTP
 * layer validates bodies and queries with their schemas.
 */
import { z } from "zod";
import {
  AdminClockAdvanceRequestSchema,
  AdminClockSchema,
  AdminCreateCustomerRequestSchema,
  AdminCustomerListSchema,
  AdminCustomerSchema,
  AdminJournalSchema,
  AdminOrderListSchema,
  AdminOrderSchema,
  AdminResetResponseSchema,
  AdminStatsSchema,
  AdminTransitionRequestSchema,
  AdminUpdateCustomerRequestSchema,
} from "../admin-schemas.ts";
import { PAGE_QUERY_SHAPE, PAGING_DESCRIPTION, REFERENCE_PREFIX_PARAM, TIME_QUERY_SHAPE } from "../admin-pages.ts";
import { type ProblemCase, problemResponses } from "./problems.ts";
import { SUCCESS_STATUS_BODY } from "./public-examples.ts";
import type { HttpMethod, NamedExample, NamedExamples, RouteDeclaration } from "./route.ts";
import { wellFormed } from "../well-formed.ts";

const NOW = 1_767_225_600_000;
const ISO = new Date(NOW).toISOString();

const CUSTOMER = {
  id: "acme",
  name: "Acme Ltd",
  tokens: ["sk_test_8Jq2v0Xh1u4lYw9mR3tA6bCdEfGh"],
  apiKey: "key_Zp4k2N8sQ1wE5rT7yU9iO0pA",
  wallets: [
    { shortcode: null, balance: 10_000, currency: "KES", default: true },
    { shortcode: "600100", balance: 2_500, currency: "KES", default: false },
  ],
  webhook: {
    url: "https://example.com/hooks/airtime",
    secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"],
    disabled: false,
  },
};

const ORDER = {
  ...SUCCESS_STATUS_BODY,
  customerId: "acme",
  idempotencyKey: "3f0c2a7e-9f1b-4c55-8d55-1a1f3f5d2b10",
};

const CLOCK = { mode: "virtual", now: NOW, iso: ISO };

const one = (summary: string, value: unknown): NamedExamples => ({ example: { summary, value } });
const json = (schema: z.ZodType, examples: NamedExamples) => ({ "application/json": { schema, examples } });

/** Every admin operation: too many failed authentications from the client's address. */
export const ADMIN_THROTTLED: ProblemCase = {
  code: "too_many_attempts",
  when: "Too many failed admin authentications from this address (10 a minute); `Retry-After` says when to retry.",
  detail: "Too many failed admin authentications from this address; retry after 42 s.",
};

/** The header of the admin API's 429, for `problemResponses`' `headers`. */
export const ADMIN_RETRY_AFTER = {
  429: z.object({
    "Retry-After": z
      .string()
      .regex(/^\d+$/)
      .meta({ description: "Seconds until this address may try again.", example: "42" }),
  }),
};

const AUTH_PROBLEMS: ProblemCase[] = [
  { code: "missing_token", when: "No Authorization header.", detail: "Send Authorization: Bearer <token>." },
  {
    code: "invalid_token",
    when: "The token is not the admin token.",
    detail: "The bearer token is unknown or has expired.",
  },
  {
    code: "forbidden",
    when: "A customer's token: the admin API needs the admin token.",
    detail: "A customer token cannot use the admin API; use the admin token.",
  },
  ADMIN_THROTTLED,
];

const BODY_PROBLEMS: ProblemCase[] = [
  {
    code: "validation_failed",
    when: "The body breaks its schema.",
    detail: "The request body failed validation — #/ms: Too small: expected number to be >=0.",
    errors: [{ pointer: "#/ms", detail: "Too small: expected number to be >=0" }],
  },
  { code: "malformed_json", when: "The body is not JSON.", detail: "The request body is not valid JSON." },
  { code: "unsupported_media_type", when: "The body is not application/json.", detail: "Send application/json." },
  {
    code: "payload_too_large",
    when: "The body is larger than 64 KiB.",
    detail: "The request body is larger than 64 KiB.",
  },
];

const notFound = (what: string): ProblemCase => ({
  code: "not_found",
  when: `No ${what} with this id.`,
  detail: `No ${what} with this id.`,
});

interface AdminRouteSpec<B extends z.ZodType, Q extends z.ZodObject> {
  readonly method: HttpMethod;
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly params?: z.ZodObject;
  readonly query?: Q;
  readonly body?: { readonly schema: B; readonly examples: NamedExamples };
  readonly ok: { readonly status?: "201"; readonly description: string; readonly schema: z.ZodType } & NamedExample;
  /** The problem examples' `instance`. */
  readonly instance: string;
  /** Besides the token problems every operation has, and the body problems every body has. */
  readonly problems?: readonly ProblemCase[];
}

/** An admin route: the `Admin` tag, one success response, and every problem it can answer. */
function adminRoute<B extends z.ZodType, Q extends z.ZodObject>(spec: AdminRouteSpec<B, Q>) {
  const { body, ok, params, query } = spec;
  const cases = [...AUTH_PROBLEMS, ...(body === undefined ? [] : BODY_PROBLEMS), ...(spec.problems ?? [])];
  return {
    method: spec.method,
    path: spec.path,
    operation: {
      operationId: spec.operationId,
      tags: ["Admin"],
      summary: spec.summary,
      ...(spec.description === undefined ? {} : { description: spec.description }),
      ...(params === undefined && query === undefined
        ? {}
        : {
            requestParams: {
              ...(params === undefined ? {} : { path: params }),
              ...(query === undefined ? {} : { query }),
            },
          }),
      ...(body === undefined
        ? {}
        : {
            requestBody: {
              required: true,
              content: { "application/json": { schema: body.schema, examples: body.examples } },
            },
          }),
      responses: {
        [ok.status ?? "200"]: {
          description: ok.description,
          content: json(ok.schema, { example: { summary: ok.summary, value: ok.value } }),
        },
        ...problemResponses(cases, { instance: spec.instance, headers: ADMIN_RETRY_AFTER }),
      },
    },
  } satisfies RouteDeclaration;
}

const idPath = (description: string, example: string) =>
  z.object({ id: wellFormed(z.string().min(1)).meta({ param: { description, example } }) });
const CUSTOMER_ID_PATH = idPath("The customer's id.", "acme");
const ORDER_ID_PATH = idPath("The order's id (not its reference).", ORDER.id);

const queryParam = <S extends z.ZodType>(schema: S, description: string, example: unknown) =>
  schema.optional().meta({ param: { description, required: false, example } });

const RESET_ROUTE = adminRoute({
  method: "post",
  path: "/_sim/reset",
  operationId: "reset",
  summary: "Reset all state, or one customer's",
  description:
    "Without `customer`: every order, idempotency key and journal entry goes, and every customer returns to its " +
    "configured state (balances included). With `customer`: the same for that customer only.",
  query: z.object({ customer: queryParam(wellFormed(z.string().min(1)), "Reset only this customer.", "acme") }),
  ok: {
    description: "What was reset.",
    schema: AdminResetResponseSchema,
    summary: "One customer",
    value: { reset: "acme" },
  },
  instance: "/_sim/reset",
  problems: [notFound("customer")],
});

const PAGE_PROBLEM: ProblemCase = {
  code: "validation_failed",
  when: "A filter, `limit` or `cursor` is not valid.",
  detail: "The query is not valid.",
};

export const LIST_CUSTOMERS_ROUTE = adminRoute({
  method: "get",
  path: "/_sim/customers",
  operationId: "listCustomers",
  summary: "List customers",
  description: `${PAGING_DESCRIPTION} Customers come in the order they were added.`,
  query: z.object({ ...PAGE_QUERY_SHAPE }),
  ok: {
    description: "One page of customers.",
    schema: AdminCustomerListSchema,
    summary: "One customer",
    value: { customers: [CUSTOMER], next_cursor: null },
  },
  instance: "/_sim/customers",
  problems: [PAGE_PROBLEM],
});

export const CREATE_CUSTOMER_ROUTE = adminRoute({
  method: "post",
  path: "/_sim/customers",
  operationId: "createCustomer",
  summary: "Create a customer",
  description: "Tokens, API key and webhook secret are generated when omitted.",
  body: {
    schema: AdminCreateCustomerRequestSchema,
    examples: one("With a shortcode wallet and a webhook", {
      id: "acme",
      name: "Acme Ltd",
      balance: 10_000,
      wallets: [{ shortcode: "600100", balance: 2_500 }],
      webhook: { url: "https://example.com/hooks/airtime" },
    }),
  },
  ok: {
    status: "201",
    description: "The new customer.",
    schema: AdminCustomerSchema,
    summary: "Created",
    value: CUSTOMER,
  },
  instance: "/_sim/customers",
  problems: [
    { code: "already_exists", when: "The id or a token is taken.", detail: 'A customer with id "acme" exists.' },
  ],
});

const GET_CUSTOMER_ROUTE = adminRoute({
  method: "get",
  path: "/_sim/customers/{id}",
  operationId: "getCustomer",
  summary: "Read a customer",
  params: CUSTOMER_ID_PATH,
  ok: { description: "The customer.", schema: AdminCustomerSchema, summary: "A customer", value: CUSTOMER },
  instance: "/_sim/customers/acme",
  problems: [notFound("customer")],
});

export const UPDATE_CUSTOMER_ROUTE = adminRoute({
  method: "patch",
  path: "/_sim/customers/{id}",
  operationId: "updateCustomer",
  summary: "Change a customer's name, tokens, wallet balances or webhook",
  description: "Changed values also become the customer's configured state, which a reset returns to.",
  params: CUSTOMER_ID_PATH,
  body: {
    schema: AdminUpdateCustomerRequestSchema,
    examples: one("Top up the default wallet", { wallets: [{ shortcode: null, balance: 50_000 }] }),
  },
  ok: { description: "The customer.", schema: AdminCustomerSchema, summary: "Updated", value: CUSTOMER },
  instance: "/_sim/customers/acme",
  problems: [
    notFound("customer"),
    {
      code: "already_exists",
      when: "A token belongs to another customer.",
      detail: "A token belongs to another customer.",
    },
  ],
});

export const LIST_ORDERS_ROUTE = adminRoute({
  method: "get",
  path: "/_sim/orders",
  operationId: "listOrders",
  summary: "List orders",
  description:
    `${PAGING_DESCRIPTION} With \`order=newest\`, newest first instead: the orders just placed, which a ` +
    "dashboard under load wants. Filters combine with AND. Orders evicted under the order cap (`--max-orders`) " +
    "are not listed.",
  query: z.object({
    customer: queryParam(wellFormed(z.string()), "Only this customer's orders.", "acme"),
    reference: queryParam(wellFormed(z.string()), "Only orders with this reference.", ORDER.reference),
    reference_prefix: REFERENCE_PREFIX_PARAM,
    status: queryParam(z.coerce.number().int().min(0), "Only orders with this status.", 0),
    order: queryParam(
      z.enum(["oldest", "newest"]),
      "Oldest first (the default) or newest first; a `next_cursor` goes on in the same direction.",
      "newest",
    ),
    ...TIME_QUERY_SHAPE,
    ...PAGE_QUERY_SHAPE,
  }),
  ok: {
    description: "One page of the matching orders.",
    schema: AdminOrderListSchema,
    summary: "One order",
    value: { orders: [ORDER], next_cursor: null },
  },
  instance: "/_sim/orders",
  problems: [PAGE_PROBLEM],
});

const GET_ORDER_ROUTE = adminRoute({
  method: "get",
  path: "/_sim/orders/{id}",
  operationId: "getOrder",
  summary: "Read an order",
  params: ORDER_ID_PATH,
  ok: { description: "The order.", schema: AdminOrderSchema, summary: "An order", value: ORDER },
  instance: `/_sim/orders/${ORDER.id}`,
  problems: [notFound("order")],
});

export const TRANSITION_ORDER_ROUTE = adminRoute({
  method: "post",
  path: "/_sim/orders/{id}/transition",
  operationId: "transitionOrder",
  summary: "Force a status transition",
  description:
    "succeed → 20, fail → 2, timeout → 6, reverse → 8, or any status of the table. The lifecycle rules hold: a " +
    "final status never changes except Success → Reversed; Failed, Timeout and Reversed refund the wallet.",
  params: ORDER_ID_PATH,
  body: { schema: AdminTransitionRequestSchema, examples: one("Succeed", { action: "succeed" }) },
  ok: { description: "The order after the transition.", schema: AdminOrderSchema, summary: "Succeeded", value: ORDER },
  instance: `/_sim/orders/${ORDER.id}/transition`,
  problems: [
    notFound("order"),
    { code: "invalid_transition", when: "The rules forbid it.", detail: "An order cannot move from status 2 to 20." },
  ],
});

const GET_STATS_ROUTE = adminRoute({
  method: "get",
  path: "/_sim/stats",
  operationId: "getStats",
  summary: "Read what the simulator keeps",
  description:
    "Orders kept in full and the cap, orders evicted under it (oldest final ones first, never one pending or " +
    "with an undelivered webhook), their compact records still kept, and tokens held.",
  ok: {
    description: "The figures.",
    schema: AdminStatsSchema,
    summary: "After some evictions",
    value: {
      orders: { retained: 300_000, max: 300_000, evicted: 12_345, evictedRecords: 12_345 },
      keyRetentionMs: 86_400_000,
      issuedTokens: 3,
    },
  },
  instance: "/_sim/stats",
});

const GET_CLOCK_ROUTE = adminRoute({
  method: "get",
  path: "/_sim/clock",
  operationId: "getClock",
  summary: "Read the simulator clock",
  ok: { description: "The clock.", schema: AdminClockSchema, summary: "Virtual", value: CLOCK },
  instance: "/_sim/clock",
});

export const ADVANCE_CLOCK_ROUTE = adminRoute({
  method: "post",
  path: "/_sim/clock/advance",
  operationId: "advanceClock",
  summary: "Advance the virtual clock",
  description: "Runs every due transition, webhook attempt and key expiry in order, then answers.",
  body: { schema: AdminClockAdvanceRequestSchema, examples: one("Two seconds", { ms: 2_000 }) },
  ok: { description: "The clock after advancing.", schema: AdminClockSchema, summary: "Advanced", value: CLOCK },
  instance: "/_sim/clock/advance",
  problems: [
    { code: "clock_not_virtual", when: "The simulator runs on the real clock.", detail: "The clock is real." },
  ],
});

export const GET_JOURNAL_ROUTE = adminRoute({
  method: "get",
  path: "/_sim/journal",
  operationId: "getJournal",
  summary: "Read the request journal",
  description:
    "One entry per request, newest last. Never records tokens or bodies. Paged back in time: a page holds the " +
    "newest `limit` matching entries (default 100, at most 1,000); its `next_cursor` leads to older ones. The " +
    "journal keeps the newest 10,000 requests (`journalLimit`).",
  query: z.object({
    customer: queryParam(wellFormed(z.string()), "Only this customer's requests.", "acme"),
    status: queryParam(z.coerce.number().int().min(100).max(599), "Only requests answered with this HTTP status.", 409),
    ...TIME_QUERY_SHAPE,
    ...PAGE_QUERY_SHAPE,
  }),
  ok: {
    description: "The entries.",
    schema: AdminJournalSchema,
    summary: "One request",
    value: {
      entries: [
        {
          id: 1,
          requestId: "6f1c1f7e-6f0e-4f43-9d59-3c7c1a1f2b10",
          at: NOW,
          wallTime: ISO,
          method: "POST",
          path: "/v1/airtime",
          status: 200,
          customerId: "acme",
          fired: [],
          durationMs: 0.8,
        },
      ],
      next_cursor: null,
    },
  },
  instance: "/_sim/journal",
  problems: [PAGE_PROBLEM],
});

/** The core admin routes, in the document's order; plugins add theirs after these. */
export const ADMIN_ROUTES: readonly RouteDeclaration[] = [
  RESET_ROUTE,
  LIST_CUSTOMERS_ROUTE,
  CREATE_CUSTOMER_ROUTE,
  GET_CUSTOMER_ROUTE,
  UPDATE_CUSTOMER_ROUTE,
  LIST_ORDERS_ROUTE,
  GET_ORDER_ROUTE,
  TRANSITION_ORDER_ROUTE,
  GET_STATS_ROUTE,
  GET_CLOCK_ROUTE,
  ADVANCE_CLOCK_ROUTE,
  GET_JOURNAL_ROUTE,
];
