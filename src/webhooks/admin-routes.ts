/**
 * `/_sim/deliveries…`: every webhook delivery and attempt, visible and
 * redeliverable. Mounted on the admin router behind the admin token.
 */
import type { Router } from "express";
import { jsonBodySchema } from "../contract/routes/route.ts";
import { DEFAULT_PAGE_LIMIT } from "../contract/admin-pages.ts";
import type { AdminExtension, AdminRouteKit } from "../domain/plugin-port.ts";
import {
  type AdminDelivery,
  type AdminDeliveryAttempt,
  type AdminDeliveryDetail,
  AdminDeliveryQuerySchema,
  type AdminRedeliverResponse,
} from "./admin-schemas.ts";
import { REDELIVER_ROUTE } from "./admin-spec.ts";
import type { WebhookDispatcher } from "./dispatcher.ts";
import type { Delivery, DeliveryAttempt } from "./ports.ts";

const iso = (ms: number) => new Date(ms).toISOString();
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

function presentDelivery(delivery: Delivery): AdminDelivery {
  return {
    id: delivery.id,
    messageId: delivery.messageId,
    kind: delivery.kind,
    customerId: delivery.customerId,
    orderId: delivery.orderId,
    reference: delivery.reference,
    status: delivery.status,
    final: delivery.final,
    state: delivery.state,
    reason: delivery.reason ?? null,
    createdAt: iso(delivery.createdAt),
    nextAttemptAt: isoOrNull(delivery.nextAttemptAt),
    deliveredAt: isoOrNull(delivery.deliveredAt),
    attemptCount: delivery.attemptCount,
    parentId: delivery.parentId ?? null,
    badSignature: delivery.badSignature,
    payload: JSON.parse(delivery.body) as AdminDelivery["payload"],
  };
}

function presentAttempt(attempt: DeliveryAttempt): AdminDeliveryAttempt {
  return {
    number: attempt.number,
    trigger: attempt.trigger,
    scheduledAt: iso(attempt.scheduledAt),
    sentAt: iso(attempt.sentAt),
    sentAtWall: iso(attempt.sentAtWall),
    url: attempt.url,
    requestHeaders: { ...attempt.requestHeaders },
    requestBody: attempt.requestBody,
    responseStatus: attempt.responseStatus,
    error: attempt.error,
    latencyMs: attempt.latencyMs,
    outcome: attempt.outcome,
    retryAfterMs: attempt.retryAfterMs ?? null,
  };
}

const QUERY_NAMES = [
  "customer",
  "order",
  "reference",
  "reference_prefix",
  "state",
  "from",
  "to",
  "limit",
  "cursor",
] as const;

/** Known query parameters only; a repeated one stays an array and fails validation. */
function pickQuery(query: Record<string, unknown>): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const name of QUERY_NAMES) if (query[name] !== undefined) picked[name] = query[name];
  return picked;
}

/**
 * @example
 * const plugin = { name: "webhooks", admin: createDeliveryAdmin(dispatcher), adminSpec: DELIVERY_ADMIN_SPEC };
 */
export function createDeliveryAdmin(dispatcher: WebhookDispatcher): AdminExtension {
  async function detail(delivery: Delivery): Promise<AdminDeliveryDetail> {
    const attempts = await dispatcher.deliveries.attempts(delivery.id);
    return { ...presentDelivery(delivery), attempts: attempts.map(presentAttempt) };
  }

  return {
    name: "webhooks",
    register(router: Router, { problem, validate, methodNotAllowed }: AdminRouteKit) {
      router.get("/deliveries", async (req, res) => {
        const query = validate(AdminDeliveryQuerySchema, pickQuery(req.query as Record<string, unknown>), "query");
        const page = await dispatcher.deliveries.listPage({
          customerId: query.customer,
          orderId: query.order,
          reference: query.reference,
          referencePrefix: query.reference_prefix,
          state: query.state,
          from: query.from,
          to: query.to,
          limit: query.limit ?? DEFAULT_PAGE_LIMIT,
          cursor: query.cursor,
        });
        res.json({ deliveries: page.deliveries.map(presentDelivery), next_cursor: page.nextCursor });
      });
      router.all("/deliveries", methodNotAllowed(["GET"]));

      router.get("/deliveries/:id", async (req, res) => {
        const delivery = await dispatcher.deliveries.get(req.params.id ?? "");
        if (delivery === undefined) throw problem("not_found", "No delivery with this id.");
        res.json(await detail(delivery));
      });
      router.all("/deliveries/:id", methodNotAllowed(["GET"]));

      router.post("/deliveries/:id/redeliver", async (req, res) => {
        const body = validate(jsonBodySchema(REDELIVER_ROUTE), req.body ?? {}, "request body");
        const outcome = await dispatcher.redeliver(
          req.params.id ?? "",
          body.enable === undefined ? {} : { enable: body.enable },
        );
        switch (outcome.kind) {
          case "attempted": {
            const answer: AdminRedeliverResponse = {
              delivery: await detail(outcome.delivery),
              attempt: presentAttempt(outcome.attempt),
            };
            res.json(answer);
            return;
          }
          case "not_found":
            throw problem("not_found", "No delivery with this id.");
          case "no_endpoint":
            throw problem("webhook_endpoint_missing", "The delivery's customer has no webhook endpoint now.");
          case "endpoint_disabled":
            throw problem(
              "webhook_endpoint_disabled",
              'The endpoint is disabled (it answered 410 Gone); send {"enable": true} to re-enable it and redeliver.',
            );
          case "closed":
            throw problem("service_unavailable", "The simulator is shutting down.");
          default: {
            const unreachable: never = outcome;
            throw new Error(`unknown redelivery outcome ${JSON.stringify(unreachable)}`);
          }
        }
      });
      router.all("/deliveries/:id/redeliver", methodNotAllowed(["POST"]));
    },
  };
}
