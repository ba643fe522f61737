/**
 * The dashboard's routes under `/_sim`, declared once for the admin
 * document: the page itself (no token: its data calls send one), the live
 * event stream, the schedule summary and the Prometheus metrics.
 */
import { z } from "zod";
import type { ZodOpenApiResponseObject } from "zod-openapi";
import { ProblemSchema } from "../contract/public-schemas.ts";
import type { RouteDeclaration } from "../contract/routes/route.ts";
import type { AdminExtensionSpec } from "../domain/plugin-port.ts";

const UNAUTHORISED: ZodOpenApiResponseObject = {
  description: "`missing_token` or `invalid_token`: no admin bearer token (403 `forbidden` for a customer's token).",
  content: { "application/problem+json": { schema: ProblemSchema } },
};

export const ScheduleSummarySchema = z
  .object({
    mode: z.enum(["real", "virtual"]),
    now: z.string().meta({ description: "Simulator time, ISO 8601." }),
    pendingEvents: z.number().int().meta({ description: "Scheduled jobs not yet run." }),
    pendingOrders: z.number().int().meta({ description: "Orders in a pending-class status." }),
    nextOrderStepAt: z.string().nullable().meta({
      description:
        "When the earliest planned status change of an order is due (a final order's reversal included); null for none.",
    }),
    configuredTiming: z
      .object({
        text: z.string().meta({ description: "The timing as `serve --timing` reads it." }),
        lowMs: z.number().meta({
          description:
            "Where the band starts: a fixed or uniform timing's least, a lognormal's 5th percentile, a quantile timing's first point.",
        }),
        highMs: z.number().meta({
          description: "Where it ends: the most, the 95th percentile or the last point; lowMs for a fixed timing.",
        }),
      })
      .meta({ description: "The configured pending → final timing, which the dashboard's histogram draws as a band." }),
    nextWebhookAttemptAt: z
      .string()
      .nullable()
      .meta({ description: "When the earliest scheduled webhook attempt is due; null for none." }),
  })
  .meta({ id: "AdminScheduleSummary" });
export type ScheduleSummary = z.infer<typeof ScheduleSummarySchema>;

export const DASHBOARD_ADMIN_SPEC: AdminExtensionSpec = [
  {
    method: "get",
    path: "/_sim/ui",
    operation: {
      tags: ["dashboard"],
      summary: "The dashboard",
      description:
        "The dashboard's page; its scripts and styles are under `/_sim/ui/assets/`, and the API reference tab " +
        "loads `/_sim/ui/redoc.standalone.js` and `/_sim/ui/openapi.json` when it opens. Served without a token: " +
        "open `/_sim/ui#token=<admin token>` (the link `serve` prints) and the page sends the token from the " +
        "URL fragment, which never reaches the server or its log, with each data call.",
      operationId: "getDashboard",
      security: [],
      responses: {
        "200": { description: "The page.", content: { "text/html": { schema: { type: "string" } } } },
        "404": { description: "The dashboard is not built (`npm run build`).", content: {} },
      },
    },
  },
  {
    method: "get",
    path: "/_sim/events",
    operation: {
      tags: ["dashboard"],
      summary: "Live events (Server-Sent Events)",
      description:
        "A `text/event-stream` that stays open: `order` events (data: the admin order) on every status change, " +
        "`request` events (data: the journal entry) for every public API request once answered, and a comment " +
        "line every 15 s to keep proxies from closing it. It needs the admin token in the Authorization header, " +
        "so browsers read it with `fetch` streaming rather than `EventSource`.",
      operationId: "streamEvents",
      responses: {
        "200": { description: "The stream.", content: { "text/event-stream": { schema: { type: "string" } } } },
        "401": UNAUTHORISED,
      },
    },
  },
  {
    method: "get",
    path: "/_sim/schedule",
    operation: {
      tags: ["dashboard"],
      summary: "What the clock will do next",
      description:
        "Simulator time, the jobs waiting (status changes, webhook attempts, key expiries) and when the next " +
        "order step and webhook attempt are due: what to advance a virtual clock by.",
      operationId: "getSchedule",
      responses: {
        "200": { description: "The summary.", content: { "application/json": { schema: ScheduleSummarySchema } } },
        "401": UNAUTHORISED,
      },
    },
  },
  {
    method: "get",
    path: "/_sim/metrics",
    operation: {
      tags: ["dashboard"],
      summary: "Prometheus metrics",
      description:
        "The Prometheus text exposition format: requests by route and status, request latency, orders by " +
        "status, orders placed and status changes, webhook attempts by outcome, pending events, retained " +
        "orders and evictions. Behind the admin token like every `/_sim` route: give the scraper " +
        "`authorization: {type: Bearer, credentials: <admin token>}`.",
      operationId: "getMetrics",
      responses: {
        "200": {
          description: "The metrics.",
          content: { "text/plain; version=0.0.4": { schema: { type: "string" } } },
        },
        "401": UNAUTHORISED,
      },
    },
  },
] satisfies readonly RouteDeclaration[];
