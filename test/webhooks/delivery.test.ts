import { readFileSync } from "node:fs";
import { Webhook } from "standardwebhooks";
import { expect, it } from "vitest";
import { parse } from "yaml";
import { WebhookHeadersSchema, WebhookPayloadSchema } from "../../src/contract/webhook-schemas.ts";
import { generateWebhookSecret } from "../../src/webhooks/signing.ts";
import { lookup } from "../support/http.ts";
import { admin, PENDING_MS, placeOrder, useCustomer, useSim } from "./support.ts";

const env = useSim();
const acme = useCustomer(env, "acme");

it("a final status is delivered, signed so that standardwebhooks verifies it, and matches the lookup", async () => {
  await placeOrder(env.url, acme.token, "SIGNED-1");
  const before = Date.now() / 1000;
  await env.sim.clock.advance(PENDING_MS);
  const delivery = await acme.inbox.waitFor("SIGNED-1");
  const after = Date.now() / 1000;
  const headers = WebhookHeadersSchema.parse(delivery.headers);
  expect(delivery.headers["content-type"]).toBe("application/json");
  // Wall clock, not the virtual clock: whole seconds between the advance and the arrival (±1 s for rounding).
  const timestamp = Number(headers["webhook-timestamp"]);
  expect(timestamp).toBeGreaterThanOrEqual(Math.floor(before) - 1);
  expect(timestamp).toBeLessThanOrEqual(Math.ceil(after) + 1);
  const verified = new Webhook(acme.secret).verify(delivery.body, headers);
  expect(WebhookPayloadSchema.parse(verified)).toMatchObject({
    reference: "SIGNED-1",
    final: true,
    type: "airtime.status",
  });
  expect(() => new Webhook(generateWebhookSecret()).verify(delivery.body, headers)).toThrow();
  expect(() => new Webhook(acme.secret).verify(delivery.body.replace("SIGNED-1", "SIGNED-2"), headers)).toThrow();
  const found = await lookup(env.url, "SIGNED-1", acme.token);
  expect(found.status).toBe(200);
  expect(delivery.webhook?.status).toBe(found.body.status);
  expect(delivery.webhook?.message).toBe(found.body.message);
});

it("the delivery and its attempt are visible on the admin API", async () => {
  const listed = await admin(env.url, "GET", "/deliveries?customer=acme&reference=SIGNED-1");
  expect(listed.status).toBe(200);
  expect(listed.body.deliveries).toHaveLength(1);
  const [delivery] = listed.body.deliveries;
  expect(delivery).toMatchObject({ state: "delivered", kind: "status", attemptCount: 1, customerId: "acme" });
  const detail = await admin(env.url, "GET", `/deliveries/${delivery.id}`);
  expect(detail.status).toBe(200);
  expect(detail.body.attempts).toHaveLength(1);
  expect(detail.body.attempts[0]).toMatchObject({
    number: 1,
    outcome: "delivered",
    responseStatus: 200,
    error: null,
    trigger: "schedule",
  });
  expect(detail.body.attempts[0].requestHeaders["webhook-id"]).toBe(delivery.messageId);
});

it("what is sent matches the public spec's webhooks section (headers, media type, body schema)", async () => {
  const spec = parse(readFileSync(new URL("../../spec/openapi.yaml", import.meta.url), "utf8"));
  const operation = spec.webhooks.airtimeStatus.post;
  const headerNames = operation.parameters
    .filter((p: { in: string; required: boolean }) => p.in === "header" && p.required)
    .map((p: { name: string }) => p.name)
    .sort();
  expect(headerNames).toEqual(["webhook-id", "webhook-signature", "webhook-timestamp"]);
  expect(Object.keys(operation.requestBody.content)).toEqual(["application/json"]);
  expect(operation.requestBody.content["application/json"].schema.$ref).toBe("#/components/schemas/WebhookPayload");
  const [delivery] = acme.inbox.deliveries();
  for (const name of headerNames) expect(delivery?.headers[name]).toBeTruthy();
  expect(delivery?.headers["content-type"]).toBe("application/json");
  const componentKeys = Object.keys(spec.components.schemas.WebhookPayload.properties).sort();
  expect(Object.keys(JSON.parse(delivery?.body ?? "{}")).sort()).toEqual(componentKeys);
});
