/**
 * Webhook deliveries shared on Redis: two simulators on one Redis with a
 * real clock, orders split across both, and a receiver on a real port that
 * counts what it gets by `webhook-id`. Every order becomes final once, every
 * final status is accepted exactly once (first attempts are refused, so
 * retries run through the shared scheduler too), and the admin API of either
 * simulator lists the same deliveries.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createSimulator, type Simulator } from "../../src/simulator/create-simulator.ts";
import { type CountingReceiver, startCountingReceiver } from "../support/counting-receiver.ts";
import { bearer, send } from "../support/http.ts";
import { redisSkipReason, useRedis } from "../support/redis.ts";

const skip = redisSkipReason();
const TOKEN = "shared-webhooks-token-01";
const ORDERS = 200;

describe.skipIf(skip !== undefined)(
  `shared webhook deliveries${skip === undefined ? "" : ` (skipped: ${skip})`}`,
  () => {
    const { server } = useRedis();
    const stops: (() => Promise<unknown>)[] = [];
    afterEach(async () => {
      for (const stop of stops.splice(0).reverse()) await stop();
    });

    async function simulator(receiver: CountingReceiver, errors: unknown[]): Promise<Simulator> {
      const sim = await createSimulator({
        clock: "real",
        store: server().url,
        demo: { token: TOKEN, balance: 1_000_000, webhook: { url: receiver.url } },
        timing: "100ms",
        webhooks: { schedule: "0,200ms,400ms,400ms,400ms", timeout: "2s", jitter: 0 },
        scenarios: false,
        onError: (error) => errors.push(error),
      });
      await sim.listen(0);
      stops.push(() => sim.close({ timeoutMs: 2_000 }));
      return sim;
    }

    /** Every delivery the admin API of `sim` lists, following the cursors. */
    async function listedDeliveries(sim: Simulator): Promise<Map<string, Record<string, unknown>>> {
      const listed = new Map<string, Record<string, unknown>>();
      let path = "/_sim/deliveries?limit=70";
      for (;;) {
        const page = await send(sim, path, { headers: bearer(sim.adminToken) });
        expect(page.status).toBe(200);
        for (const delivery of page.body.deliveries as Record<string, unknown>[]) {
          listed.set(delivery.id as string, delivery);
        }
        const cursor = page.body.next_cursor as string | null;
        if (cursor === null) return listed;
        path = `/_sim/deliveries?limit=70&cursor=${cursor}`;
      }
    }

    it(
      "delivers each final status of orders split across two simulators once, and both list the same deliveries",
      {
        timeout: 90_000,
      },
      async () => {
        const receiver = await startCountingReceiver({ failFirst: 1 });
        stops.push(() => receiver.close());
        const errors: unknown[] = [];
        const sims = [await simulator(receiver, errors), await simulator(receiver, errors)];
        const replies = await Promise.all(
          Array.from({ length: ORDERS }, (_, i) =>
            send(sims[i % 2] as Simulator, "/v1/airtime", {
              method: "POST",
              headers: { ...bearer(TOKEN), "idempotency-key": `shared-${i}` },
              body: { account: "0712345678", amount: 10, currency: "KES", reference: `shared-${i}` },
            }),
          ),
        );
        expect(replies.map((reply) => reply.status).filter((status) => status !== 200)).toEqual([]);

        const accepted = () => [...receiver.messages.values()].filter((message) => message.accepted > 0).length;
        await expect.poll(accepted, { timeout: 60_000, interval: 200 }).toBe(ORDERS);

        // Each order final once, with one message for its final status, accepted once after one refusal.
        const messages = [...receiver.messages.values()];
        expect(messages).toHaveLength(ORDERS);
        expect(new Set(messages.map((message) => message.body.reference)).size).toBe(ORDERS);
        expect(messages.filter((message) => message.accepted !== 1 || message.requests !== 2)).toEqual([]);
        for (let i = 0; i < ORDERS; i++) {
          const order = await send(sims[(i + 1) % 2] as Simulator, `/v1/airtime/shared-${i}`, {
            headers: bearer(TOKEN),
          });
          const finals = (order.body.history as { status: number }[]).filter((entry) => entry.status === 20);
          expect(finals).toHaveLength(1);
        }

        // Both admin APIs list the same deliveries: one per order, delivered after two attempts.
        await expect
          .poll(
            async () =>
              [...(await listedDeliveries(sims[0] as Simulator)).values()].filter((d) => d.state === "delivered")
                .length,
            {
              timeout: 10_000,
            },
          )
          .toBe(ORDERS);
        const [first, second] = [
          await listedDeliveries(sims[0] as Simulator),
          await listedDeliveries(sims[1] as Simulator),
        ];
        expect([...first.keys()].sort()).toEqual([...second.keys()].sort());
        expect(first.size).toBe(ORDERS);
        for (const delivery of second.values()) {
          expect(delivery).toMatchObject({ state: "delivered", attemptCount: 2 });
          expect(receiver.messages.has(delivery.messageId as string)).toBe(true);
        }
        expect(errors).toEqual([]);
      },
    );
  },
);
