/**
 * The receiver from docs/webhooks.md ("Receiving webhooks in your own code") (express, raw body, standardwebhooks),
 * fed by the simulator: what the documentation tells integrators to write
 * really works.
 */
import { readFile } from "node:fs/promises";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { Webhook } from "standardwebhooks";
import { afterAll, expect, it } from "vitest";
import { generateWebhookSecret } from "../../src/webhooks/signing.ts";
import { codeBlocks, section } from "../support/markdown.ts";
import { PENDING_MS, placeOrder, startSim, type WebhookSim } from "./support.ts";

let env: WebhookSim | undefined;
let server: Server | undefined;

afterAll(async () => {
  await env?.close();
  await new Promise((resolve) => server?.close(resolve));
});

it("the documented express receiver verifies, dedupes and acknowledges the simulator's webhooks", async () => {
  const secret = generateWebhookSecret();
  const seen = new Set<string>();
  const statuses: Array<{ reference: string; status: number }> = [];

  // --- as in docs/webhooks.md ("Receiving webhooks in your own code") ---
  const app = express();
  const wh = new Webhook(secret);
  app.post("/webhooks/airtime", express.raw({ type: "application/json" }), (req, res) => {
    let event: { reference: string; status: number; final: boolean };
    try {
      event = wh.verify(req.body, req.headers as Record<string, string>) as typeof event;
    } catch {
      res.status(400).send("invalid signature");
      return;
    }
    const id = req.header("webhook-id") as string;
    if (!seen.has(id)) {
      seen.add(id);
      statuses.push({ reference: event.reference, status: event.status });
    }
    res.sendStatus(204);
  });
  // ---

  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server?.once("listening", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/airtime`;

  env = await startSim();
  const created = await env.sim.customers.createCustomer({
    id: "shop",
    token: "token-shop-0123456789",
    webhook: { url, secrets: [secret] },
  });
  expect(created.kind).toBe("created");
  await placeOrder(env.url, "token-shop-0123456789", "EXPRESS-1");
  await env.sim.clock.advance(PENDING_MS);
  expect(statuses).toEqual([{ reference: "EXPRESS-1", status: 20 }]);
  const [delivery] = await env.dispatcher.deliveries.list({ customerId: "shop" });
  expect(delivery?.state).toBe("delivered");
});

it("the guide's receiver makes the calls this test runs", async () => {
  const guide = section(await readFile("docs/webhooks.md", "utf8"), "receiving-webhooks-in-your-own-code");
  const samples = codeBlocks(guide).filter((block) => block.language === "js");
  expect(samples).toHaveLength(1);
  for (const call of [
    'app.post("/webhooks/airtime", express.raw({ type: "application/json" }), (req, res) => {',
    "const wh = new Webhook(process.env.AIRTIME_WEBHOOK_SECRET);",
    "event = wh.verify(req.body, req.headers);",
    'return res.status(400).send("invalid signature");',
    'const id = req.header("webhook-id");',
    "if (!seen.has(id)) {",
    "res.sendStatus(204);",
  ]) {
    expect(samples[0]?.code).toContain(call);
  }
});
