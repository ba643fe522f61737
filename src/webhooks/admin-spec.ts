/**
 * The routes of `/_sim/deliveries…`, declared once: merged into the admin
 * document, and the bodies and queries the admin routes validate.
 * Importable without a running simulator.
 */
import {
  PAGE_QUERY_SHAPE,
  PAGING_DESCRIPTION,
  REFERENCE_PREFIX_PARAM,
  TIME_QUERY_SHAPE,
} from "../contract/admin-pages.ts";
import { z } from "zod";
import { ADMIN_RETRY_AFTER, ADMIN_THROTTLED } from "../contract/routes/admin-routes.ts";
import { type ProblemCase, problemResponses } from "../contract/routes/problems.ts";
import { SUCCESS_WEBHOOK } from "../contract/routes/public-examples.ts";
import type { RouteDeclaration } from "../contract/routes/route.ts";
import type { AdminExtensionSpec } from "../domain/plugin-port.ts";
import {
  type AdminDelivery,
  type AdminDeliveryAttempt,
  AdminDeliveryDetailSchema,
  AdminDeliveryListSchema,
  AdminDeliveryStateSchema,
  AdminRedeliverRequestSchema,
  AdminRedeliverResponseSchema,
} from "./admin-schemas.ts";

const EXAMPLE_DELIVERY: AdminDelivery = {
  id: "dlv_4m8q2t6v0x3z5b7d9f1h",
  messageId: "msg_2c6k8m0q4t7v9x1z3b5d",
  kind: "status",
  customerId: "demo",
  orderId: SUCCESS_WEBHOOK.id,
  reference: SUCCESS_WEBHOOK.reference,
  status: 20,
  final: true,
  state: "delivered",
  reason: null,
  createdAt: "2026-03-02T09:15:02.000Z",
  nextAttemptAt: null,
  deliveredAt: "2026-03-02T09:15:07.012Z",
  attemptCount: 2,
  parentId: null,
  badSignature: false,
  payload: SUCCESS_WEBHOOK,
};

const attemptOf = (number: number, overrides: Partial<AdminDeliveryAttempt>): AdminDeliveryAttempt => ({
  number,
  trigger: "schedule",
  scheduledAt: "2026-03-02T09:15:02.000Z",
  sentAt: "2026-03-02T09:15:02.000Z",
  sentAtWall: "2026-03-02T09:15:02.004Z",
  url: "https://example.com/webhooks/airtime",
  requestHeaders: {
    "content-type": "application/json",
    "user-agent": "airtime-harness-webhooks/1",
    "webhook-id": EXAMPLE_DELIVERY.messageId,
    "webhook-timestamp": "1772442902",
    "webhook-signature": "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=",
  },
  requestBody: JSON.stringify(EXAMPLE_DELIVERY.payload),
  responseStatus: 200,
  error: null,
  latencyMs: 12,
  outcome: "delivered",
  retryAfterMs: null,
  ...overrides,
});

const FAILED_ATTEMPT = attemptOf(1, { responseStatus: 503, outcome: "failed", latencyMs: 8 });
const DELIVERED_ATTEMPT = attemptOf(2, {
  scheduledAt: "2026-03-02T09:15:07.008Z",
  sentAt: "2026-03-02T09:15:07.008Z",
  sentAtWall: "2026-03-02T09:15:07.010Z",
});
const EXAMPLE_DETAIL = { ...EXAMPLE_DELIVERY, attempts: [FAILED_ATTEMPT, DELIVERED_ATTEMPT] };

const NOT_FOUND: ProblemCase = {
  code: "not_found",
  when: "No delivery with this id.",
  detail: "No delivery with this id.",
};
const AUTH_CASES: ProblemCase[] = [
  { code: "missing_token", when: "No admin bearer token.", detail: "Send the admin token as a bearer token." },
  { code: "invalid_token", when: "The token is not the admin token.", detail: "The bearer token is not valid." },
  { code: "forbidden", when: "A customer's token was used.", detail: "This token cannot use the admin API." },
  ADMIN_THROTTLED,
];

const ID_PATH = z.object({
  id: z
    .string()
    .min(1)
    .meta({ param: { description: "The delivery id (`dlv_…`).", example: EXAMPLE_DELIVERY.id } }),
});
const filter = (description: string, example: string) =>
  z
    .string()
    .min(1)
    .optional()
    .meta({ param: { description, required: false, example } });

const LIST_DELIVERIES_ROUTE = {
  method: "get",
  path: "/_sim/deliveries",
  operation: {
    operationId: "listDeliveries",
    tags: ["Webhooks"],
    summary: "List webhook deliveries",
    description:
      "Every webhook message on its way to a customer's endpoint, oldest first. Filters combine with AND. " +
      "A duplicated message (scenario) shows as several deliveries sharing one `messageId`. " +
      PAGING_DESCRIPTION,
    requestParams: {
      query: z.object({
        customer: filter("Only this customer's deliveries.", "demo"),
        order: filter("Only this order's deliveries (order id).", EXAMPLE_DELIVERY.orderId),
        reference: filter("Only deliveries for orders with this reference.", EXAMPLE_DELIVERY.reference),
        state: AdminDeliveryStateSchema.optional().meta({
          param: { description: AdminDeliveryStateSchema.description, required: false, example: "failed" },
        }),
        reference_prefix: REFERENCE_PREFIX_PARAM,
        ...TIME_QUERY_SHAPE,
        ...PAGE_QUERY_SHAPE,
      }),
    },
    responses: {
      "200": {
        description: "The matching deliveries.",
        content: {
          "application/json": {
            schema: AdminDeliveryListSchema,
            examples: {
              delivered: {
                summary: "One delivered webhook",
                value: { deliveries: [EXAMPLE_DELIVERY], next_cursor: null },
              },
            },
          },
        },
      },
      ...problemResponses(
        [
          {
            code: "validation_failed",
            when: "A filter is malformed (e.g. an unknown `state`).",
            detail: "The query is not valid: #/state Invalid option",
            errors: [{ pointer: "#/state", detail: "Invalid option" }],
          },
          ...AUTH_CASES,
        ],
        { instance: "/_sim/deliveries", headers: ADMIN_RETRY_AFTER },
      ),
    },
  },
} satisfies RouteDeclaration;

const GET_DELIVERY_ROUTE = {
  method: "get",
  path: "/_sim/deliveries/{id}",
  operation: {
    operationId: "getDelivery",
    tags: ["Webhooks"],
    summary: "One webhook delivery with every attempt",
    description:
      "Each attempt shows when it was due and sent (simulator clock, and wall clock as in `webhook-timestamp`), " +
      "the URL, the exact request headers and body, the answer's status or the network error, and the latency.",
    requestParams: { path: ID_PATH },
    responses: {
      "200": {
        description: "The delivery and its attempts, oldest first.",
        content: {
          "application/json": {
            schema: AdminDeliveryDetailSchema,
            examples: { retried: { summary: "Delivered on the second attempt", value: EXAMPLE_DETAIL } },
          },
        },
      },
      ...problemResponses([NOT_FOUND, ...AUTH_CASES], {
        instance: `/_sim/deliveries/${EXAMPLE_DELIVERY.id}`,
        headers: ADMIN_RETRY_AFTER,
      }),
    },
  },
} satisfies RouteDeclaration;

export const REDELIVER_ROUTE = {
  method: "post",
  path: "/_sim/deliveries/{id}/redeliver",
  operation: {
    operationId: "redeliverDelivery",
    tags: ["Webhooks"],
    summary: "Send a delivery again, now",
    description:
      "Makes one extra attempt at once (same `webhook-id` and body, a fresh `webhook-timestamp` and signature " +
      "with the endpoint's current secrets) and answers when it is done. A 2xx marks the delivery delivered; " +
      "a failure leaves a pending delivery's schedule running and marks any other delivery `failed`. " +
      'An endpoint disabled by a 410 stays disabled unless the body says `{"enable": true}`.',
    requestParams: { path: ID_PATH },
    requestBody: {
      required: false,
      content: {
        "application/json": {
          schema: AdminRedeliverRequestSchema,
          examples: { enable: { summary: "Re-enable the endpoint, then redeliver", value: { enable: true } } },
        },
      },
    },
    responses: {
      "200": {
        description: "The attempt (whatever its outcome) and the delivery after it.",
        content: {
          "application/json": {
            schema: AdminRedeliverResponseSchema,
            examples: {
              delivered: {
                summary: "The receiver is back",
                value: { delivery: EXAMPLE_DETAIL, attempt: DELIVERED_ATTEMPT },
              },
            },
          },
        },
      },
      ...problemResponses(
        [
          NOT_FOUND,
          {
            code: "webhook_endpoint_disabled",
            when: 'The endpoint answered 410 Gone earlier and `{"enable": true}` was not sent.',
            detail:
              'The endpoint is disabled (it answered 410 Gone); send {"enable": true} to re-enable it and redeliver.',
          },
          {
            code: "webhook_endpoint_missing",
            when: "The customer has no webhook endpoint any more.",
            detail: "The delivery's customer has no webhook endpoint now.",
          },
          {
            code: "validation_failed",
            when: "The body is not `{enable?: boolean}`.",
            detail: "The request body is not valid: #/enable Invalid input: expected boolean, received string",
            errors: [{ pointer: "#/enable", detail: "Invalid input: expected boolean, received string" }],
          },
          ...AUTH_CASES,
        ],
        { instance: `/_sim/deliveries/${EXAMPLE_DELIVERY.id}/redeliver`, headers: ADMIN_RETRY_AFTER },
      ),
    },
  },
} satisfies RouteDeclaration;

/** The delivery routes, in the admin document's order. */
export const DELIVERY_ADMIN_SPEC: AdminExtensionSpec = [LIST_DELIVERIES_ROUTE, GET_DELIVERY_ROUTE, REDELIVER_ROUTE];
