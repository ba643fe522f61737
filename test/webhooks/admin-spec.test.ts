/**
 * The delivery routes' OpenAPI (merged into the admin document) is valid
 * OpenAPI 3.1 on its own, every `$ref` resolves, and the routes answer what
 * it describes.
 */
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { expect, it } from "vitest";
import { stringify } from "yaml";
import { generateDocument } from "../../src/contract/openapi/render-yaml.ts";
import { createSimulator } from "../../src/simulator/create-simulator.ts";
import { DEFAULT_ADMIN_SPECS } from "../../src/simulator/default-plugins.ts";
import {
  AdminDeliveryDetailSchema,
  AdminDeliveryListSchema,
  AdminRedeliverResponseSchema,
} from "../../src/webhooks/admin-schemas.ts";
import { DELIVERY_ADMIN_SPEC } from "../../src/webhooks/admin-spec.ts";
import { DEFAULT_RETRY_SCHEDULE } from "../../src/webhooks/schedule.ts";
import { findWebhookPlugin } from "../../src/webhooks/webhook-plugin.ts";
import { admin, PENDING_MS, placeOrder, useCustomer, useSim } from "./support.ts";

function standaloneDocument(): Record<string, unknown> {
  return generateDocument({
    info: {
      title: "Webhook deliveries (admin)",
      version: "1.0.0",
      description: "The /_sim/deliveries routes on their own.",
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [{ url: "http://127.0.0.1:4010" }],
    security: [{ adminBearer: [] }],
    routes: DELIVERY_ADMIN_SPEC,
    components: { securitySchemes: { adminBearer: { type: "http", scheme: "bearer" } } },
  }) as unknown as Record<string, unknown>;
}

async function lintErrors(doc: unknown): Promise<string[]> {
  const config = await createConfig({ extends: ["recommended"] });
  const problems = await lintFromString({ source: stringify(doc), absoluteRef: "deliveries.yaml", config });
  return problems
    .filter((p) => p.severity === "error")
    .map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
}

it("is valid OpenAPI 3.1 with every reference resolved", async () => {
  expect(await lintErrors(standaloneDocument())).toEqual([]);
  const paths = [...new Set(DELIVERY_ADMIN_SPEC.map((route) => route.path))];
  expect(paths).toEqual(["/_sim/deliveries", "/_sim/deliveries/{id}", "/_sim/deliveries/{id}/redeliver"]);
});

it("the lint does catch a broken variant", async () => {
  const broken = standaloneDocument() as {
    paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
  };
  const get = broken.paths["/_sim/deliveries"]?.get;
  if (get === undefined) throw new Error("no GET /_sim/deliveries");
  get.responses["200"] = {
    description: "x",
    content: { "application/json": { schema: { $ref: "#/components/schemas/Nowhere" } } },
  };
  expect((await lintErrors(broken)).join("\n")).toMatch(/no-unresolved-refs/);
});

const env = useSim();
const acme = useCustomer(env, "acme");

it("the routes answer bodies that their response schemas accept", async () => {
  acme.inbox.respondWith(({ attempt }) => (attempt === 1 ? { status: 503, headers: { "retry-after": "1" } } : 200));
  await placeOrder(env.url, acme.token, "SPEC-1");
  await env.sim.clock.advance(PENDING_MS);
  const listed = await admin(env.url, "GET", "/deliveries");
  expect(AdminDeliveryListSchema.strict().parse(listed.body).deliveries).toHaveLength(1);
  const detail = await admin(env.url, "GET", `/deliveries/${listed.body.deliveries[0].id}`);
  expect(AdminDeliveryDetailSchema.parse(detail.body).attempts[0]).toMatchObject({
    responseStatus: 503,
    retryAfterMs: 1000,
  });
  const redelivered = await admin(env.url, "POST", `/deliveries/${listed.body.deliveries[0].id}/redeliver`);
  expect(AdminRedeliverResponseSchema.parse(redelivered.body).attempt.outcome).toBe("delivered");
});

it("webhooks are a default plugin of createSimulator (off with webhooks: false), and their spec is in the admin document's list", async () => {
  const withHooks = await createSimulator({ clock: "virtual", webhooks: { jitter: 0 } });
  const without = await createSimulator({ clock: "virtual", webhooks: false });
  try {
    expect(findWebhookPlugin(withHooks.plugins)?.dispatcher.schedule).toEqual(DEFAULT_RETRY_SCHEDULE);
    expect(findWebhookPlugin(without.plugins)).toBeUndefined();
    expect(DEFAULT_ADMIN_SPECS).toContain(DELIVERY_ADMIN_SPEC);
  } finally {
    await withHooks.close();
    await without.close();
  }
});
