// fastify-server.js
import Fastify from "fastify";
import { Webhook } from "standardwebhooks";
import { handleAirtimeEvent } from "./airtime-events.js";

const webhook = new Webhook(process.env.AIRTIME_WEBHOOK_SECRET);
const app = Fastify();

// In its own plugin, so only this route gets the body as a Buffer instead of parsed JSON.
app.register(async (scope) => {
  scope.addContentTypeParser("application/json", { parseAs: "buffer" }, (_request, body, done) => done(null, body));
  scope.post("/webhooks/airtime", async (request, reply) => {
    let event;
    try {
      event = webhook.verify(request.body, request.headers);
    } catch {
      return reply.code(400).send("invalid signature");
    }
    await handleAirtimeEvent(request.headers["webhook-id"], event);
    return reply.code(204).send();
  });
});

await app.listen({ port: Number(process.env.PORT ?? 3000) });
