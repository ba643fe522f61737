/**
 * Webhook deliveries shared on Redis: two simulators on one Redis with a
 * real clock, orders split across both, and a receiver on a real port that
 * counts what it gets by `webhook-id`. Every order becomes final once, every
 * final status is accepted exactly once (first attempts are refused, so
 * retries run through the shared scheduler too), the admin API of either
 * simulator lists the same deliveries, and a simulator that closes leaves
 * its attempts to the other.
 */
import { afterEach, expect, it } from "vitest";
import { createSimulator, type Simulator } from "../../src/simulator/create-simulator.ts";
import { type CountingReceiver, startCountingReceiver } from "../support/counting-receiver.ts";
import { bearer, send } from "../support/http.ts";
import { describeOnEachRedis } from "../support/shared-redis.ts";

const TOKEN = "shared-webhooks-token-01";
const ORDERS = 200;

describeOnEachRedis("shared webhook deliveries", (redis) => {
  const stops: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  });

  async function simulator(
    receiver: CountingReceiver,
    errors: unknown[],
    { db = 0, schedule = "0,200ms,400ms,400ms,400ms" } = {},
  ): Promise<Simulator> {
    const sim = await createSimulator({
      clock: "real",
      store: await redis.storeUrl(db),
      demo: { token: TOKEN, balance: 1_000_000, webhook: { url: receiver.url } },
      timing: "100ms",
      webhooks: { schedule, timeout: "2s", jitter: 0 },
      scenarios: false,
      onError: (error) => errors.push(error),
    });
    await sim.listen(0);
    stops.push(() => sim.close({ timeoutMs: 2_000 }));
    return sim;
  }

  /** `count` orders, split across the simulators, all accepted. */
  async function placeOrders(sims: readonly Simulator[], count: number): Promise<void> {
    const replies = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        send(sims[i % sims.length] as Simulator, "/v1/airtime", {
          method: "POST",
          headers: { ...bearer(TOKEN), "idempotency-key": `shared-${i}` },
          body: { account: "0712345678", amount: 10, currency: "KES", reference: `shared-${i}` },
        }),
      ),
    );
    expect(replies.map((reply) => reply.status).filter((status) => status !== 200)).toEqual([]);
  }

  /** Every delivery the admin API of `sim` lists (with `filter`, e.g. `&state=pending`), following the cursors. */
  async function listedDeliveries(sim: Simulator, filter = ""): Promise<Map<string, Record<string, unknown>>> {
    const listed = new Map<string, Record<string, unknown>>();
    let path = `/_sim/deliveries?limit=70${filter}`;
    for (;;) {
      const page = await send(sim, path, { headers: bearer(sim.adminToken) });
      expect(page.status).toBe(200);
      for (const delivery of page.body.deliveries as Record<string, unknown>[]) {
        listed.set(delivery.id as string, delivery);
      }
      const cursor = page.body.next_cursor as string | null;
      if (cursor === null) return listed;
      path = `/_sim/deliveries?limit=70${filter}&cursor=${cursor}`;
    }
  }

  const acceptedCount = (receiver: CountingReceiver) =>
    [...receiver.messages.values()].filter((message) => message.accepted > 0).length;

  it(
    "delivers each final status of orders split across two simulators once; both list the same deliveries",
    {
      timeout: 90_000,
    },
    async () => {
      const receiver = await startCountingReceiver({ failFirst: 1 });
      stops.push(() => receiver.close());
      const errors: unknown[] = [];
      const sims = [await simulator(receiver, errors), await simulator(receiver, errors)] as const;
      await placeOrders(sims, ORDERS);
      await expect.poll(() => acceptedCount(receiver), { timeout: 60_000, interval: 200 }).toBe(ORDERS);

      // Each order final once, with one message for its final status, accepted once after one refusal.
      const messages = [...receiver.messages.values()];
      expect(messages).toHaveLength(ORDERS);
      expect(new Set(messages.map((message) => message.body.reference)).size).toBe(ORDERS);
      expect(messages.filter((message) => message.accepted !== 1 || message.requests !== 2)).toEqual([]);
      for (let i = 0; i < ORDERS; i++) {
        const order = await send(i % 2 === 0 ? sims[1] : sims[0], `/v1/airtime/shared-${i}`, {
          headers: bearer(TOKEN),
        });
        const finals = (order.body.history as { status: number }[]).filter((entry) => entry.status === 20);
        expect(finals).toHaveLength(1);
      }

      // Both admin APIs list the same deliveries: one per order, delivered after two attempts.
      const delivered = async () => (await listedDeliveries(sims[0], "&state=delivered")).size;
      await expect.poll(delivered, { timeout: 10_000 }).toBe(ORDERS);
      const [first, second] = [await listedDeliveries(sims[0]), await listedDeliveries(sims[1])];
      expect([...first.keys()].sort()).toEqual([...second.keys()].sort());
      expect(first.size).toBe(ORDERS);
      for (const delivery of second.values()) {
        expect(delivery).toMatchObject({ state: "delivered", attemptCount: 2 });
        expect(receiver.messages.has(delivery.messageId as string)).toBe(true);
      }
      expect(errors).toEqual([]);
    },
  );

  it(
    "leaves the attempts of a simulator that closes to the other, which delivers every message once",
    {
      timeout: 90_000,
    },
    async () => {
      // Down, and slow to say so, until the first simulator has closed: it holds attempts in flight as it closes.
      const receiver = await startCountingReceiver({ down: true, downLatencyMs: 300 });
      stops.push(() => receiver.close());
      const errors: unknown[] = [];
      const options = { db: 1, schedule: ["0", ...Array.from({ length: 100 }, () => "300ms")].join(",") };
      const [closing, staying] = [
        await simulator(receiver, errors, options),
        await simulator(receiver, errors, options),
      ];
      await placeOrders([closing, staying], 100);
      const refused = async () =>
        [...(await listedDeliveries(staying, "&state=pending")).values()].filter((d) => (d.attemptCount as number) > 0)
          .length;
      await expect.poll(refused, { timeout: 30_000, interval: 200 }).toBe(100);

      // Closing at once: attempts in flight are cut off and recorded, their retries scheduled for the other.
      const report = await closing.shutdown();
      receiver.down = false;
      await expect.poll(() => acceptedCount(receiver), { timeout: 60_000, interval: 200 }).toBe(100);
      expect([...receiver.messages.values()].filter((message) => message.accepted !== 1)).toEqual([]);
      const delivered = async () => (await listedDeliveries(staying, "&state=delivered")).size;
      await expect.poll(delivered, { timeout: 10_000 }).toBe(100);
      // Cut-off attempts are recorded as failed `shutdown` attempts of their deliveries.
      const cutOff = report.left["webhook attempts cut off"] ?? 0;
      let shutdownAttempts = 0;
      for (const id of (await listedDeliveries(staying)).keys()) {
        const detail = await send(staying, `/_sim/deliveries/${id}`, { headers: bearer(staying.adminToken) });
        shutdownAttempts += (detail.body.attempts as { error: string | null }[]).filter(
          (attempt) => attempt.error === "shutdown",
        ).length;
      }
      expect(shutdownAttempts).toBe(cutOff);
      expect(errors).toEqual([]);
    },
  );
});
