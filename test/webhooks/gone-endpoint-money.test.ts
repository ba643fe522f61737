/**
 * A 410 from a receiver disables its endpoint, and a redelivery with
 * `enable` turns it back on. Neither may touch the customer's money: a debit
 * that lands between the dispatcher reading the customer and writing the
 * endpoint's flag must survive. The store here forces that interleaving
 * every time: each read of the customer is followed, before the reader goes
 * on, by an order placed (and debited) through the same store, as a request
 * served meanwhile by this or another process would do.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_STATUS_TABLE } from "../../src/contract/status-codes.ts";
import type { Customer, Order } from "../../src/domain/model.ts";
import type { Store } from "../../src/domain/ports.ts";
import { createSeededRandom } from "../../src/domain/ids.ts";
import type { StatusChange } from "../../src/domain/service-types.ts";
import { createMemoryStore } from "../../src/store/memory-store.ts";
import { createRedisStore } from "../../src/redis/redis-store.ts";
import { createTimeKeeper } from "../../src/time/time-keeper.ts";
import { createWebhookDispatcher } from "../../src/webhooks/dispatcher.ts";
import { createWebhookInbox } from "../../src/webhooks/inbox.ts";
import { generateWebhookSecret } from "../../src/webhooks/signing.ts";
import { redisSkipReason, useRedis } from "../support/redis.ts";
import { order } from "../store/store-contract.ts";

const START = Date.parse("2026-03-02T09:00:00Z");
const START_BALANCE = 1_000_000;
const ROUNDS = 5;

/** `inner`, where every read of a customer lets an order of theirs be placed before the reader resumes. */
function debitAfterEachRead(inner: Store): Store {
  let placed = 0;
  const getCustomer = async (id: string): Promise<Customer | undefined> => {
    const read = await inner.getCustomer(id);
    if (read !== undefined) {
      placed += 1;
      const outcome = await inner.placeOrder({ order: order(`race-${placed}`, id, `RACE-${placed}`), now: START });
      if (outcome.kind !== "placed") throw new Error(`the racing order was not placed: ${outcome.kind}`);
    }
    return read;
  };
  return new Proxy(inner, {
    get: (target, name, receiver) => (name === "getCustomer" ? getCustomer : Reflect.get(target, name, receiver)),
  });
}

function finalChange(customerId: string, reference: string): StatusChange {
  const final: Order = {
    ...order(`ord_${reference}`, customerId, reference),
    status: 20,
    message: "Success",
    history: [
      { status: 0, message: "Pending", at: START - 1000 },
      { status: 20, message: "Success", at: START },
    ],
  };
  return {
    order: final,
    previousStatus: 0,
    final: true,
    wallet: { shortcode: null, balanceCents: 0, currency: "KES" },
  };
}

/** The customer's wallets plus what their orders hold (none here is refunded), in cents. */
async function moneyOf(store: Store, customerId: string): Promise<number> {
  const customer = await store.getCustomer(customerId);
  const wallets = (customer?.wallets ?? []).reduce((sum, wallet) => sum + wallet.balanceCents, 0);
  const orders = await store.listOrders({ customerId });
  return wallets + orders.reduce((sum, held) => sum + held.amountCents, 0);
}

async function goneAndEnabledInALoop(inner: Store): Promise<{ money: number; orders: number; attempts: number }> {
  const secret = generateWebhookSecret();
  const receiver = createWebhookInbox({ secret, respond: 410 });
  const url = await receiver.listen();
  await inner.putCustomer({
    id: "gone",
    name: "Gone",
    tokens: ["gone-token"],
    apiKey: "k",
    wallets: [{ shortcode: null, balanceCents: START_BALANCE, currency: "KES" }],
    webhook: { url, secrets: [secret] },
  });
  const time = createTimeKeeper({ mode: "virtual", startAt: START });
  const dispatcher = createWebhookDispatcher(
    {
      store: debitAfterEachRead(inner),
      clock: time.clock,
      scheduler: time.scheduler,
      random: createSeededRandom(1),
      statusTable: DEFAULT_STATUS_TABLE,
    },
    { schedule: [0], timeout: 2000, jitter: 0 },
  );
  try {
    for (let round = 0; round < ROUNDS; round++) {
      await dispatcher.events.statusChanged(finalChange("gone", `GONE-${round}`));
      await time.advance(0);
      await dispatcher.settle();
      // This round's delivery: disabled by its own 410, or, the endpoint being off, from the start.
      const delivery = (await dispatcher.deliveries.list({ state: "disabled" })).find(
        (disabled) => disabled.reference === `GONE-${round}`,
      );
      if (delivery === undefined) throw new Error("the 410 did not disable the delivery");
      const again = await dispatcher.redeliver(delivery.id, { enable: true });
      expect(again.kind).toBe("attempted");
    }
    const orders = (await inner.listOrders({ customerId: "gone" })).length;
    return { money: await moneyOf(inner, "gone"), orders, attempts: receiver.requests().length };
  } finally {
    await dispatcher.close();
    await receiver.close();
  }
}

it("a 410 and a re-enable during traffic conserve money on the memory store", async () => {
  const run = await goneAndEnabledInALoop(createMemoryStore());
  // The first round's scheduled attempt, then each round's redelivery: a 410 each, every one racing debits.
  expect(run.attempts).toBe(ROUNDS + 1);
  expect(run.orders).toBeGreaterThanOrEqual(2 * ROUNDS);
  expect(run.money).toBe(START_BALANCE);
});

const skip = redisSkipReason();

describe.skipIf(skip !== undefined)(`on Redis${skip === undefined ? "" : ` (skipped: ${skip})`}`, () => {
  const { client } = useRedis();

  it("a 410 and a re-enable during traffic conserve money on the Redis store", async () => {
    const run = await goneAndEnabledInALoop(createRedisStore(client(), { prefix: "gone:" }));
    expect(run.attempts).toBe(ROUNDS + 1);
    expect(run.orders).toBeGreaterThanOrEqual(2 * ROUNDS);
    expect(run.money).toBe(START_BALANCE);
  });
});
