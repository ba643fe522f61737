/**
 * A failed attempt schedules its retry's job first and names it on its
 * delivery second, so a process killed in between never leaves a delivery
 * waiting for a job nobody scheduled. Between the two, though, the job may
 * fall due and be claimed: the recording process stalled (a loaded machine)
 * or died. That run finds the delivery still naming the attempt before it.
 * It used to take itself for a stale job and vanish, and once the delivery
 * named it, the delivery waited for a job that no longer existed: its
 * webhook was never sent (the kill-instance test lost 1 to 20 messages of
 * 200 that way under a CPU hog). The in-between instant is made here by
 * hand, through the same scheduler and delivery store the simulator uses.
 */
import { afterEach, describe, expect, it } from "vitest";
import { jobShards, shardOf } from "../../src/redis/job-shards.ts";
import { createSimulator, type Simulator } from "../../src/simulator/create-simulator.ts";
import type { SimulatorContext } from "../../src/domain/plugin-port.ts";
import type { Job } from "../../src/domain/ports.ts";
import { jobIdFor } from "../../src/webhooks/delivery-transitions.ts";
import type { Delivery } from "../../src/webhooks/ports.ts";
import type { WebhookPlugin } from "../../src/webhooks/webhook-plugin.ts";
import { type CountingReceiver, startCountingReceiver } from "../support/counting-receiver.ts";
import { bearer, send } from "../support/http.ts";
import { redisSkipReason, useRedis } from "../support/redis.ts";

const skip = redisSkipReason();
const TOKEN = "named-late-token-000001";

describe.skipIf(skip !== undefined)(
  `a retry's job due before its delivery names it${skip ? ` (skipped: ${skip})` : ""}`,
  () => {
    const redis = useRedis();
    const stops: (() => Promise<unknown>)[] = [];
    afterEach(async () => {
      for (const stop of stops.splice(0).reverse()) await stop();
    });

    async function start(): Promise<{ sim: Simulator; context: SimulatorContext; receiver: CountingReceiver }> {
      const receiver = await startCountingReceiver({ down: true });
      stops.push(() => receiver.close());
      let context: SimulatorContext | undefined;
      const sim = await createSimulator({
        store: `redis://127.0.0.1:${redis.server().port}/0`,
        clock: "real",
        timing: "100ms",
        scenarios: false,
        demo: { token: TOKEN, webhook: { url: receiver.url } },
        // The second slot is far away: the test makes its job itself, due at once.
        webhooks: { schedule: "0,60s", jitter: 0, timeout: "2s" },
        plugins: [
          (given) => {
            context = given;
            return { name: "context-spy" };
          },
        ],
      });
      stops.push(() => sim.close());
      await sim.listen(0);
      if (context === undefined) throw new Error("the plugin was not built");
      return { sim, context, receiver };
    }

    it("is kept until the delivery names it, and its webhook is sent", { timeout: 60_000 }, async () => {
      const { sim, context, receiver } = await start();
      const reply = await send(sim.url, "/v1/airtime", {
        method: "POST",
        headers: { ...bearer(TOKEN), "idempotency-key": "late-1" },
        body: { account: "0712345678", amount: 10, currency: "KES", reference: "late-1" },
      });
      expect(reply.status).toBe(200);
      const plugin = sim.plugins.find((candidate) => candidate.name === "webhooks") as WebhookPlugin;
      const deliveries = plugin.dispatcher.deliveries;
      // The first attempt met the receiver down: the delivery names its second slot's job.
      let delivery: Delivery | undefined;
      await expect
        .poll(
          async () => {
            [delivery] = await deliveries.list({ state: "pending" });
            return delivery?.attemptCount;
          },
          { timeout: 20_000, interval: 100 },
        )
        .toBe(1);
      if (delivery === undefined) throw new Error("no delivery");
      const { id } = delivery;
      const second = jobIdFor(id, 1);
      expect(delivery.nextJobId).toBe(second);

      // Back to the instant between the two steps: the delivery still names the first slot,
      // while the second slot's job is scheduled, due now.
      await context.scheduler.cancel(second);
      await deliveries.update(id, (current) => ({ ...current, scheduleIndex: 0, nextJobId: jobIdFor(id, 0) }));
      const dueAt = sim.clock.now();
      await context.scheduler.schedule({
        id: second,
        type: "webhook.attempt",
        dueAt,
        payload: { deliveryId: id, scheduleIndex: 1 },
      });
      // The job runs while the delivery does not name it yet, and puts itself off: its stored due time moves on.
      // (Only that shows the run is over; the job merely leaving the due set may be a run still reading the delivery.)
      const keys = jobShards("ah:", 16)[shardOf(second, 16)] as { data: string };
      const client = redis.client();
      const storedDueAt = async () => (JSON.parse((await client.hget(keys.data, second)) ?? "{}") as Job).dueAt;
      await expect.poll(storedDueAt, { timeout: 10_000, interval: 20 }).toBeGreaterThan(dueAt);

      // The receiver is up again, and the recording process comes back and names the job. In this order:
      // the job's next look may come at any moment after the naming, and a refused last slot ends the delivery.
      receiver.down = false;
      await deliveries.update(id, (current) => ({ ...current, scheduleIndex: 1, nextJobId: second }));
      await expect
        .poll(() => [...receiver.messages.values()].filter((message) => message.accepted > 0).length, {
          timeout: 20_000,
          interval: 100,
        })
        .toBe(1);
      // The receiver's 2xx comes before the sender records it.
      await expect.poll(async () => (await deliveries.get(id))?.state, { timeout: 10_000 }).toBe("delivered");
    });
  },
);
