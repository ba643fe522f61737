/**
 * Money under admin traffic, on the memory store and on Redis: fast-check
 * draws rounds of requests sent at once, over real connections, to one
 * simulator: placements (some replaying a key), forced outcomes (succeed,
 * fail, reverse), customer edits, a receiver flipping between 204 and 410
 * Gone (a 410 disables the customer's endpoint), redeliveries that
 * re-enable it, and clock advances. A balance top-up is an admin PATCH that
 * sets an absolute balance, so it runs alone between rounds and opens a new
 * line of the ledger: what it adds is the new balance less the balance it
 * replaced. After every round:
 *
 * - money is conserved: the wallet plus what the orders hold (debited, not
 *   refunded) equals the ledger;
 * - no debit is undone: every order acknowledged is still there, a replay of
 *   its key gives its id, and the ledger above leaves no room for a debit
 *   given back while its order still holds it;
 * - nothing answers a 5xx.
 *
 * The property sees the simulator only through its HTTP API, so it judges
 * any store behind it: `test/redis/admin-money.test.ts` runs it on both
 * stores, `test/redis/admin-money-defect.test.ts` on a store with a planted
 * defect, which it must catch.
 */
import { fc } from "@fast-check/vitest";
import { expect } from "vitest";
import { DEFAULT_STATUS_TABLE, refundsWallet } from "../../src/contract/status-codes.ts";
import { createSimulator, type Simulator } from "../../src/simulator/create-simulator.ts";
import { createWebhookInbox, type WebhookInbox } from "../../src/webhooks/inbox.ts";
import { generateWebhookSecret } from "../../src/webhooks/signing.ts";
import { createWebhookPlugin } from "../../src/webhooks/webhook-plugin.ts";
import { bearer, type Reply, send } from "./http.ts";

const ADMIN = "admin-money-admin-token-01";
const TOKEN = "admin-money-payer-token-1";
const START_KES = 5_000;

type Step =
  | { readonly kind: "place"; readonly key: number; readonly amount: number }
  | { readonly kind: "force"; readonly pick: number; readonly action: "succeed" | "fail" | "reverse" }
  | { readonly kind: "rename"; readonly name: string }
  | { readonly kind: "receiver"; readonly gone: boolean }
  | { readonly kind: "redeliver"; readonly pick: number }
  | { readonly kind: "advance"; readonly ms: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant("place"), key: fc.nat(30), amount: fc.integer({ min: 10, max: 900 }) }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("force"),
      pick: fc.nat(),
      action: fc.constantFrom("succeed", "fail", "reverse"),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("rename"), name: fc.string({ minLength: 1, maxLength: 20 }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("receiver"), gone: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("redeliver"), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("advance"), ms: fc.integer({ min: 0, max: 5_000 }) }) },
) as fc.Arbitrary<Step>;

/** A round: a top-up alone (a new balance in KES, or none), then steps sent at once. */
const roundArb = fc.record({
  topUp: fc.option(fc.integer({ min: 0, max: 20_000 }), { nil: undefined, freq: 4 }),
  steps: fc.array(stepArb, { minLength: 1, maxLength: 8 }),
});

interface Run {
  readonly sim: Simulator;
  readonly inbox: WebhookInbox;
  /** Order id by the key that placed it. */
  readonly acknowledged: Map<string, string>;
  /** The ledger: what wallet plus held orders must come to, in cents. */
  expectedCents: number;
}

/**
 * A simulator for one run of the property on `store` (the memory store when
 * undefined), its webhook receiver, and `close` for both.
 */
async function startRun(store: string | undefined): Promise<Run & { close(): Promise<void> }> {
  const secret = generateWebhookSecret();
  const inbox = createWebhookInbox({ secret, respond: 204 });
  const url = await inbox.listen();
  try {
    const sim = await createSimulator({
      clock: "virtual",
      seed: 1,
      timing: "1h",
      adminToken: ADMIN,
      demo: false,
      defaultPlugins: false,
      plugins: [createWebhookPlugin({ schedule: [0], timeout: "2s", jitter: 0 })],
      customers: [{ id: "payer", token: TOKEN, balance: START_KES, webhook: { url, secrets: [secret] } }],
      ...(store === undefined ? {} : { store }),
    });
    await sim.listen(0);
    const close = async () => {
      await sim.close();
      await inbox.close();
    };
    return { sim, inbox, acknowledged: new Map(), expectedCents: START_KES * 100, close };
  } catch (error) {
    await inbox.close();
    throw error;
  }
}

/**
 * Asserts the property over `seed`'s runs; `prepare` empties the store
 * before each run (runs follow one another on one database).
 *
 * @example
 * await assertMoneyUnderAdminTraffic({ seed: 1, store: redisUrl, prepare: () => client.flushdb() });
 */
export async function assertMoneyUnderAdminTraffic(options: {
  readonly seed: number;
  readonly store?: string;
  readonly prepare?: () => Promise<unknown>;
}): Promise<void> {
  await fc.assert(
    fc.asyncProperty(fc.array(roundArb, { minLength: 3, maxLength: 12 }), async (rounds) => {
      await options.prepare?.();
      const run = await startRun(options.store);
      try {
        for (const round of rounds) {
          if (round.topUp !== undefined) await topUp(run, round.topUp);
          const replies = await Promise.all(round.steps.map((step) => perform(run, step)));
          expect(replies.filter((reply) => reply !== undefined && reply.status >= 500)).toEqual([]);
          await audit(run);
        }
      } finally {
        await run.close();
      }
    }),
    { seed: options.seed, numRuns: 4, endOnFailure: true },
  );
}

const admin = (run: Run, path: string, init: Parameters<typeof send>[2] = {}) =>
  send(run.sim.url, `/_sim${path}`, { ...init, headers: bearer(ADMIN) });

/** Sets the balance, alone: the ledger gains the new balance less the one it replaced. */
async function topUp(run: Run, kes: number): Promise<void> {
  const before = await walletCents(run);
  const reply = await admin(run, "/customers/payer", {
    method: "PATCH",
    body: { wallets: [{ shortcode: null, balance: kes }] },
  });
  expect(reply.status).toBe(200);
  run.expectedCents += kes * 100 - before;
}

async function perform(run: Run, step: Step): Promise<Reply | undefined> {
  const ids = [...run.acknowledged.values()];
  const picked = (pick: number) => ids[pick % Math.max(1, ids.length)];
  switch (step.kind) {
    case "place": {
      const key = `k-${step.key}`;
      const reply = await send(run.sim.url, "/v1/airtime", {
        method: "POST",
        headers: { ...bearer(TOKEN), "idempotency-key": key },
        body: { account: "0712345678", amount: step.amount, currency: "KES", reference: `r-${step.key}` },
      });
      if (reply.status === 200) {
        const first = run.acknowledged.get(key);
        if (first !== undefined) expect(reply.body.id, `key ${key} replayed`).toBe(first);
        else run.acknowledged.set(key, reply.body.id as string);
      }
      return reply;
    }
    case "force": {
      const id = picked(step.pick);
      return id === undefined
        ? undefined
        : admin(run, `/orders/${id}/transition`, { method: "POST", body: { action: step.action } });
    }
    case "rename":
      return admin(run, "/customers/payer", { method: "PATCH", body: { name: step.name } });
    case "receiver":
      run.inbox.respondWith(step.gone ? 410 : 204);
      return undefined;
    case "redeliver": {
      const listed = await admin(run, "/deliveries?limit=100");
      const deliveries = (listed.body.deliveries ?? []) as { id: string }[];
      const delivery = deliveries[step.pick % Math.max(1, deliveries.length)];
      return delivery === undefined
        ? listed
        : admin(run, `/deliveries/${delivery.id}/redeliver`, { method: "POST", body: { enable: true } });
    }
    case "advance":
      return admin(run, "/clock/advance", { method: "POST", body: { ms: step.ms } });
  }
}

async function walletCents(run: Run): Promise<number> {
  const customer = await admin(run, "/customers/payer");
  const wallets = customer.body.wallets as { balance: number }[];
  return wallets.reduce((sum, wallet) => sum + Math.round(wallet.balance * 100), 0);
}

/**
 * Every acknowledged order is there, and the ledger holds: a debit given
 * back without its order's refunding status (or an order gone) breaks it.
 */
async function audit(run: Run): Promise<void> {
  const listed = await admin(run, "/orders?customer=payer&limit=1000");
  expect(listed.status).toBe(200);
  const orders = listed.body.orders as { id: string; amount: number; status: number }[];
  const byId = new Map(orders.map((order) => [order.id, order]));
  for (const id of run.acknowledged.values()) expect(byId.has(id), `order ${id} kept`).toBe(true);
  let heldCents = 0;
  for (const order of orders) {
    if (refundsWallet(DEFAULT_STATUS_TABLE, order.status)) continue;
    heldCents += Math.round(order.amount * 100);
  }
  expect((await walletCents(run)) + heldCents).toBe(run.expectedCents);
}
