/**
 * The admin API's OpenAPI 3.1 document (`spec/admin.openapi.yaml`), built
 * from the schemas in `src/contract/admin-schemas.ts` plus every plugin's
 * `adminSpec`, with the same helpers as the public document.
 */
import { type OpenAPIObject, OpenApiBuilder, type OperationObject, type ResponseObject } from "openapi3-ts/oas31";
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
  AdminTransitionRequestSchema,
  AdminUpdateCustomerRequestSchema,
} from "../contract/admin-schemas.ts";
import { jsonBody, jsonResponse, type NamedExamples, parameter } from "../contract/openapi/content.ts";
import { type ProblemCase, problemResponses } from "../contract/openapi/problems.ts";
import { SUCCESS_STATUS_BODY } from "../contract/openapi/public-examples.ts";
import { renderOpenApiYaml } from "../contract/openapi/render-yaml.ts";
import { createSchemaRegistry, type SchemaRegistry } from "../contract/openapi/schema-registry.ts";
import type { AdminExtensionSpec } from "./admin-extension.ts";

export const ADMIN_SPEC_FILE = "spec/admin.openapi.yaml";

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

function problems(
  registry: SchemaRegistry,
  instance: string,
  cases: readonly ProblemCase[],
): Record<string, ResponseObject> {
  return problemResponses(registry, [...AUTH_PROBLEMS, ...cases], { instance });
}

const notFound = (what: string): ProblemCase => ({
  code: "not_found",
  when: `No ${what} with this id.`,
  detail: `No ${what} with this id.`,
});

function operation(
  registry: SchemaRegistry,
  spec: {
    id: string;
    summary: string;
    description?: string;
    instance: string;
    ok: { status: "200" | "201"; schema: z.ZodType; examples: NamedExamples; description: string };
    problems?: readonly ProblemCase[];
    body?: { schema: z.ZodType; examples: NamedExamples };
    parameters?: OperationObject["parameters"];
  },
): OperationObject {
  return {
    operationId: spec.id,
    tags: ["Admin"],
    summary: spec.summary,
    ...(spec.description === undefined ? {} : { description: spec.description }),
    ...(spec.parameters === undefined ? {} : { parameters: spec.parameters }),
    ...(spec.body === undefined ? {} : { requestBody: jsonBody(registry, spec.body.schema, spec.body.examples) }),
    responses: {
      [spec.ok.status]: jsonResponse(registry, spec.ok.schema, spec.ok.examples, { description: spec.ok.description }),
      ...problems(registry, spec.instance, [
        ...(spec.body === undefined ? [] : BODY_PROBLEMS),
        ...(spec.problems ?? []),
      ]),
    },
  };
}

function pathId(registry: SchemaRegistry, name: string, description: string, example: string) {
  return parameter(registry, z.string().min(1), { name, in: "path", description, example });
}

function query(registry: SchemaRegistry, name: string, schema: z.ZodType, description: string, example: unknown) {
  return parameter(registry, schema, { name, in: "query", description, example });
}

/**
 * An extension schema is described as the server produces it; one that only
 * a parser can describe (it carries a transform, like a timing written as
 * text) is described as what it accepts.
 */
function addExtensionSchema(registry: SchemaRegistry, schema: z.ZodType): void {
  try {
    registry.add([schema], "output");
  } catch (error) {
    if (!(error instanceof Error) || !/cannot be represented/i.test(error.message)) throw error;
    registry.add([schema], "input");
  }
}

/**
 * The admin document for the given extension specs (each plugin's
 * `adminSpec`): their paths are added as they are, their schemas as
 * components.
 *
 * @example
 * const document = buildAdminDocument([]);
 * document.paths?.["/_sim/clock/advance"]?.post?.operationId; // "advanceClock"
 */
export function buildAdminDocument(extensionSpecs: readonly AdminExtensionSpec[] = []): OpenAPIObject {
  const registry = createSchemaRegistry();
  const customerId = pathId(registry, "id", "The customer's id.", "acme");
  const orderId = pathId(registry, "id", "The order's id (not its reference).", ORDER.id);
  const builder = OpenApiBuilder.create()
    .addOpenApiVersion("3.1.0")
    .addInfo({
      title: "Airtime simulator admin API",
      version: "0.1.0",
      description: [
        "Controls the airtime simulator: customers and wallets, orders and forced transitions, the clock, the request",
        "journal, and a reset. Every operation needs the admin bearer token (printed by `airtime-harness serve`);",
        "a customer's token is refused with 403 `forbidden`. Errors are RFC 9457 problem+json with a stable `code`.",
        "Amounts are KES numbers.",
      ].join(" "),
      license: { name: "MIT", identifier: "MIT" },
    })
    .addServer({ url: "http://127.0.0.1:4010", description: "The simulator (`npm start`)." })
    .addTag({ name: "Admin", description: "Simulator control." })
    .addSecurityScheme("adminToken", { type: "http", scheme: "bearer", description: "The simulator's admin token." })
    .addPath("/_sim/reset", {
      post: operation(registry, {
        id: "reset",
        summary: "Reset all state, or one customer's",
        description:
          "Without `customer`: every order, idempotency key and journal entry goes, and every customer returns to its " +
          "configured state (balances included). With `customer`: the same for that customer only.",
        instance: "/_sim/reset",
        parameters: [query(registry, "customer", z.string().min(1), "Reset only this customer.", "acme")],
        ok: {
          status: "200",
          schema: AdminResetResponseSchema,
          examples: one("One customer", { reset: "acme" }),
          description: "What was reset.",
        },
        problems: [notFound("customer")],
      }),
    })
    .addPath("/_sim/customers", {
      get: operation(registry, {
        id: "listCustomers",
        summary: "List customers",
        instance: "/_sim/customers",
        ok: {
          status: "200",
          schema: AdminCustomerListSchema,
          examples: one("One customer", { customers: [CUSTOMER] }),
          description: "Every customer.",
        },
      }),
      post: operation(registry, {
        id: "createCustomer",
        summary: "Create a customer",
        description: "Tokens, API key and webhook secret are generated when omitted.",
        instance: "/_sim/customers",
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
          schema: AdminCustomerSchema,
          examples: one("Created", CUSTOMER),
          description: "The new customer.",
        },
        problems: [
          { code: "already_exists", when: "The id or a token is taken.", detail: 'A customer with id "acme" exists.' },
        ],
      }),
    })
    .addPath("/_sim/customers/{id}", {
      get: operation(registry, {
        id: "getCustomer",
        summary: "Read a customer",
        instance: "/_sim/customers/acme",
        parameters: [customerId],
        ok: {
          status: "200",
          schema: AdminCustomerSchema,
          examples: one("A customer", CUSTOMER),
          description: "The customer.",
        },
        problems: [notFound("customer")],
      }),
      patch: operation(registry, {
        id: "updateCustomer",
        summary: "Change a customer's name, tokens, wallet balances or webhook",
        description: "Changed values also become the customer's configured state, which a reset returns to.",
        instance: "/_sim/customers/acme",
        parameters: [customerId],
        body: {
          schema: AdminUpdateCustomerRequestSchema,
          examples: one("Top up the default wallet", { wallets: [{ shortcode: null, balance: 50_000 }] }),
        },
        ok: {
          status: "200",
          schema: AdminCustomerSchema,
          examples: one("Updated", CUSTOMER),
          description: "The customer.",
        },
        problems: [
          notFound("customer"),
          {
            code: "already_exists",
            when: "A token belongs to another customer.",
            detail: "A token belongs to another customer.",
          },
        ],
      }),
    })
    .addPath("/_sim/orders", {
      get: operation(registry, {
        id: "listOrders",
        summary: "List orders",
        instance: "/_sim/orders",
        parameters: [
          query(registry, "customer", z.string(), "Only this customer's orders.", "acme"),
          query(registry, "reference", z.string(), "Only orders with this reference.", ORDER.reference),
          query(registry, "status", z.number().int().min(0), "Only orders with this status.", 0),
        ],
        ok: {
          status: "200",
          schema: AdminOrderListSchema,
          examples: one("One order", { orders: [ORDER] }),
          description: "The matching orders.",
        },
        problems: [
          { code: "validation_failed", when: "A filter is not valid.", detail: "The order query is not valid." },
        ],
      }),
    })
    .addPath("/_sim/orders/{id}", {
      get: operation(registry, {
        id: "getOrder",
        summary: "Read an order",
        instance: `/_sim/orders/${ORDER.id}`,
        parameters: [orderId],
        ok: { status: "200", schema: AdminOrderSchema, examples: one("An order", ORDER), description: "The order." },
        problems: [notFound("order")],
      }),
    })
    .addPath("/_sim/orders/{id}/transition", {
      post: operation(registry, {
        id: "transitionOrder",
        summary: "Force a status transition",
        description:
          "succeed → 20, fail → 2, timeout → 6, reverse → 8, or any status of the table. The lifecycle rules hold: a " +
          "final status never changes except Success → Reversed; Failed, Timeout and Reversed refund the wallet.",
        instance: `/_sim/orders/${ORDER.id}/transition`,
        parameters: [orderId],
        body: { schema: AdminTransitionRequestSchema, examples: one("Succeed", { action: "succeed" }) },
        ok: {
          status: "200",
          schema: AdminOrderSchema,
          examples: one("Succeeded", ORDER),
          description: "The order after the transition.",
        },
        problems: [
          notFound("order"),
          {
            code: "invalid_transition",
            when: "The rules forbid it.",
            detail: "An order cannot move from status 2 to 20.",
          },
        ],
      }),
    })
    .addPath("/_sim/clock", {
      get: operation(registry, {
        id: "getClock",
        summary: "Read the simulator clock",
        instance: "/_sim/clock",
        ok: { status: "200", schema: AdminClockSchema, examples: one("Virtual", CLOCK), description: "The clock." },
      }),
    })
    .addPath("/_sim/clock/advance", {
      post: operation(registry, {
        id: "advanceClock",
        summary: "Advance the virtual clock",
        description: "Runs every due transition, webhook attempt and key expiry in order, then answers.",
        instance: "/_sim/clock/advance",
        body: { schema: AdminClockAdvanceRequestSchema, examples: one("Two seconds", { ms: 2_000 }) },
        ok: {
          status: "200",
          schema: AdminClockSchema,
          examples: one("Advanced", CLOCK),
          description: "The clock after advancing.",
        },
        problems: [
          { code: "clock_not_virtual", when: "The simulator runs on the real clock.", detail: "The clock is real." },
        ],
      }),
    })
    .addPath("/_sim/journal", {
      get: operation(registry, {
        id: "getJournal",
        summary: "Read the request journal",
        description: "One entry per request, newest last. Never records tokens or bodies.",
        instance: "/_sim/journal",
        parameters: [
          query(registry, "customer", z.string(), "Only this customer's requests.", "acme"),
          query(registry, "limit", z.number().int().min(1).max(10_000), "The newest N entries.", 50),
        ],
        ok: {
          status: "200",
          schema: AdminJournalSchema,
          examples: one("One request", {
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
          }),
          description: "The entries.",
        },
        problems: [
          { code: "validation_failed", when: "A filter is not valid.", detail: "The journal query is not valid." },
        ],
      }),
    });

  for (const spec of extensionSpecs) {
    for (const schema of spec.schemas) addExtensionSchema(registry, schema);
    for (const [path, item] of Object.entries(spec.paths)) builder.addPath(path, item);
  }
  const document = builder.getSpec();
  document.security = [{ adminToken: [] }];
  document.components = { ...document.components, schemas: registry.components() };
  return document;
}

export function renderAdminOpenApiYaml(extensionSpecs: readonly AdminExtensionSpec[] = []): string {
  return renderOpenApiYaml(
    buildAdminDocument(extensionSpecs),
    "Generated from the zod schemas in src/contract/admin-schemas.ts and the plugins' admin specs by `npm run spec:generate`. Do not edit.",
  );
}
