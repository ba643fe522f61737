/**
 * A lifecycle step whose first run died part-way. On Redis a step is a
 * leased job: a process killed after storing an order's final status, but
 * before announcing it, leaves the job to a survivor, whose run finds the
 * change already stored. That run must still refund (the refund went in with
 * the change) and still send the webhook, exactly once, whatever part of the
 * announcement the first run got done. The first run's partial work is made
 * here by hand, through the same store and delivery store the simulator
 * uses; the second run is the simulator's own, its step job run again.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ORDER_STEP_JOB } from "../../src/domain/lifecycle.ts";
import type { Order } from "../../src/domain/model.ts";
import { createSimulator, type Simulator } from "../../src/simulator/create-simulator.ts";
import type { SimulatorContext } from "../../src/domain/plugin-port.ts";
import { jobIdFor } from "../../src/webhooks/delivery-transitions.ts";
import { buildWebhookPayload } from "../../src/webhooks/payload.ts";
import type { WebhookPlugin } from "../../src/webhooks/webhook-plugin.ts";
import { type CountingReceiver, startCountingReceiver } from "../support/counting-receiver.ts";
import { bearer, send } from "../support/http.ts";
import { redisSkipReason, useRedis } from "../support/redis.ts";

const TOKEN = "announce-again-token-0001";
const BALANCE_CENTS = 100_000;
const AMOUNT_CENTS = 1_000;
const STEP_DELAY = "300ms";

interface Setup {
  readonly sim: Simulator;
  readonly context: SimulatorContext;
  readonly receiver: CountingReceiver;
}

const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

/** Where the simulator keeps its state, and its clock: a real clock on Redis shares attempts as leased jobs. */
interface Placement {
  readonly store?: string;
  readonly clock: "virtual" | "real";
}

async function start({ store, clock }: Placement): Promise<Setup> {
  const receiver = await startCountingReceiver();
  stops.push(() => receiver.close());
  let context: SimulatorContext | undefined;
  const sim = await createSimulator({
    clock,
    seed: 3,
    timing: STEP_DELAY,
    // Every order fails: the final status refunds the wallet.
    failureRate: 1,
    scenarios: false,
    demo: { token: TOKEN, balance: BALANCE_CENTS / 100, webhook: { url: receiver.url } },
    webhooks: { schedule: "0,1s", jitter: 0, timeout: "2s" },
    plugins: [
      (given) => {
        context = given;
        return { name: "context-spy" };
      },
    ],
    ...(store === undefined ? {} : { store }),
  });
  stops.push(() => sim.close());
  await sim.listen(0);
  if (context === undefined) throw new Error("the plugin was not built");
  return { sim, context, receiver };
}

async function placeOrder(setup: Setup): Promise<Order> {
  const reply = await send(setup.sim.url, "/v1/airtime", {
    method: "POST",
    headers: { ...bearer(TOKEN), "idempotency-key": "again-1" },
    body: { account: "0712345678", amount: AMOUNT_CENTS / 100, currency: "KES", reference: "again-1" },
  });
  expect(reply.status).toBe(200);
  const order = await setup.sim.store.getOrderByReference("demo", "again-1");
  if (order === undefined) throw new Error("the order was not stored");
  return order;
}

/** What the step's first run stores before it dies: the final status, refunded in the same step. */
async function storeFinalByHand(setup: Setup, order: Order): Promise<Order> {
  const at = setup.sim.clock.now();
  const failed: Order = {
    ...order,
    status: 2,
    message: "Failed",
    updatedAt: at,
    history: [...order.history, { status: 2, message: "Failed", at }],
  };
  expect(await setup.sim.store.updateOrderIf(failed, order.history.length, true)).toBe(true);
  return failed;
}

async function balanceCents(setup: Setup): Promise<number> {
  return (await setup.sim.store.getCustomer("demo"))?.wallets[0]?.balanceCents ?? Number.NaN;
}

function deliveriesOf(setup: Setup) {
  const plugin = setup.sim.plugins.find((candidate) => candidate.name === "webhooks") as WebhookPlugin | undefined;
  if (plugin === undefined) throw new Error("no webhook plugin");
  return plugin.dispatcher.deliveries;
}

/** Lets the jobs due within `ms` run: advances a virtual clock, or waits until a real one's are done. */
async function runJobs(setup: Setup, ms: number): Promise<void> {
  if (setup.sim.clock.mode === "virtual") {
    await setup.sim.clock.advance(ms);
  } else {
    await expect.poll(() => setup.context.scheduler.size(), { timeout: 20_000, interval: 50 }).toBe(0);
  }
  await setup.sim.settle();
}

/** Runs the order's step again, as a survivor does once the first run's lease ran out. */
async function runStepAgain(setup: Setup, order: Order): Promise<void> {
  const payload = { orderId: order.id, stepIndex: 0, customerId: order.customerId };
  await setup.context.scheduler.schedule({ type: ORDER_STEP_JOB, dueAt: setup.sim.clock.now(), payload });
  await runJobs(setup, 0);
}

/** The order's final status went out once, as `msg_…v2`, and the wallet was refunded once. */
async function expectAnnouncedOnce(setup: Setup, order: Order): Promise<void> {
  const messageId = `msg_${order.id.slice("ord_".length)}v2`;
  expect([...setup.receiver.messages.keys()]).toEqual([messageId]);
  expect(setup.receiver.messages.get(messageId)).toMatchObject({ requests: 1, accepted: 1 });
  expect(setup.receiver.messages.get(messageId)?.body).toMatchObject({ status: 2, final: true, balance: 1_000 });
  expect(await deliveriesOf(setup).list({ orderId: order.id })).toMatchObject([{ state: "delivered" }]);
  expect(await balanceCents(setup)).toBe(BALANCE_CENTS);
  expect((await setup.sim.store.getOrder(order.id))?.history.map((entry) => entry.status)).toEqual([0, 2]);
}

/**
 * `shared`: attempts are jobs several processes share, so a process can die
 * between storing a delivery and scheduling its first attempt (in one
 * process, a death loses the whole memory store instead).
 */
function describeAnnouncingAgain(name: string, placement: () => Placement, shared: boolean): void {
  describe(`a step run again after its first run died (${name})`, () => {
    it("announces a change the first run stored but never announced, and refunds it once", async () => {
      const setup = await start(placement());
      const order = await placeOrder(setup);
      expect(await balanceCents(setup)).toBe(BALANCE_CENTS - AMOUNT_CENTS);
      await storeFinalByHand(setup, order);
      expect(await balanceCents(setup)).toBe(BALANCE_CENTS);
      // The step's own job is the run that follows the dead one.
      await runJobs(setup, 1_000);
      await expectAnnouncedOnce(setup, order);
      // A third run announces nothing new: same message, same delivery, no second refund.
      await runStepAgain(setup, order);
      await expectAnnouncedOnce(setup, order);
    });

    // Only where attempts are shared jobs: registered there alone, so no run reports it skipped.
    if (shared) {
      it("sends a delivery the first run stored but never scheduled, once", async () => {
        const setup = await start(placement());
        const order = await placeOrder(setup);
        const failed = await storeFinalByHand(setup, order);
        const wallet = { shortcode: null, balanceCents: BALANCE_CENTS, currency: "KES" };
        const body = JSON.stringify(buildWebhookPayload({ order: failed, previousStatus: 0, final: true, wallet }));
        const id = `dlv_${order.id.slice("ord_".length)}v2`;
        const dueAt = failed.updatedAt;
        await deliveriesOf(setup).insert({
          id,
          messageId: `msg_${order.id.slice("ord_".length)}v2`,
          kind: "status",
          customerId: order.customerId,
          orderId: order.id,
          reference: order.reference,
          status: 2,
          final: true,
          body,
          createdAt: dueAt,
          badSignature: false,
          state: "pending",
          nextAttemptAt: dueAt,
          nextJobId: jobIdFor(id, 0),
          scheduleIndex: 0,
          attemptCount: 0,
          deliveredAt: null,
        });
        await runJobs(setup, 1_000);
        await expectAnnouncedOnce(setup, order);
        await runStepAgain(setup, order);
        await expectAnnouncedOnce(setup, order);
      });
    }
  });
}

describeAnnouncingAgain("memory store", () => ({ clock: "virtual" }), false);

const skip = redisSkipReason();
describe.skipIf(skip !== undefined)(`on Redis${skip === undefined ? "" : ` (skipped: ${skip})`}`, () => {
  const { server } = useRedis();
  let database = 0;
  const nextDatabase = () => server().url.replace(/\/0$/, `/${++database}`);
  describeAnnouncingAgain("Redis store, virtual clock", () => ({ store: nextDatabase(), clock: "virtual" }), false);
  describeAnnouncingAgain("Redis store, real clock", () => ({ store: nextDatabase(), clock: "real" }), true);
});
