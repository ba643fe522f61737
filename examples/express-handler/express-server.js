// express-server.js
import express from "express";
import { Webhook } from "standardwebhooks";
import { handleAirtimeEvent, orderState } from "./airtime-events.js";

const webhook = new Webhook(process.env.AIRTIME_WEBHOOK_SECRET); // "whsec_…"
const app = express();

// express.raw keeps the body as the exact bytes that were signed.
app.post("/webhooks/airtime", express.raw({ type: "application/json" }), async (req, res) => {
  let event;
  try {
    event = webhook.verify(req.body, req.headers); // signature and ±5 min timestamp
  } catch {
    return res.status(400).send("invalid signature");
  }
  await handleAirtimeEvent(req.header("webhook-id"), event);
  res.sendStatus(204);
});

// What the app believes about an order, for your own pages and for `handler-check`.
app.get("/orders/:reference", (req, res) => {
  const order = orderState(req.params.reference);
  if (order === undefined) return res.sendStatus(404);
  res.json(order);
});

const port = Number(process.env.PORT ?? 3000);
app.listen(port, () => console.log(`listening on http://localhost:${port}/webhooks/airtime`));
