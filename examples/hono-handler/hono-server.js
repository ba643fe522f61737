// hono-server.js
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { Webhook } from "standardwebhooks";
import { handleAirtimeEvent } from "./airtime-events.js";

const webhook = new Webhook(process.env.AIRTIME_WEBHOOK_SECRET);
const app = new Hono();

app.post("/webhooks/airtime", async (c) => {
  const body = await c.req.text(); // the raw body, before any JSON parsing
  const headers = Object.fromEntries(c.req.raw.headers);
  let event;
  try {
    event = webhook.verify(body, headers);
  } catch {
    return c.text("invalid signature", 400);
  }
  await handleAirtimeEvent(headers["webhook-id"], event);
  return c.body(null, 204);
});

serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 3000) });
