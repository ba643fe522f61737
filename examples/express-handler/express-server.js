// express-server.js
import express from "express";
import { Webhook } from "standardwebhooks";
import { handleAirtimeEvent } from "./airtime-events.js";

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

const port = Number(process.env.PORT ?? 3000);
app.listen(port, () => console.log(`listening on http://localhost:${port}/webhooks/airtime`));
