/**
 * For each planted defect, a short exchange over raw HTTP that shows it:
 * `misbehaves` is true against the defective provider and false against the
 * correct one, so every entry of the catalogue is a real, visible defect and
 * the correct provider is free of it.
 */
import type { ForeignDefect } from "./defects.ts";
import { anOrder, balance, call, finalOf, lookup, order, until, type Answer, type Kit } from "./foreign-client.ts";
import type { ForeignTargetOptions } from "./foreign-target.ts";

interface Demo {
  /** Settings that make the defect show (finals always come fast in these demos). */
  readonly options?: ForeignTargetOptions;
  misbehaves(kit: Kit): Promise<boolean>;
}

/** How long a demo waits for webhooks that a defect may withhold: ample for a local delivery. */
const WEBHOOK_PATIENCE_MS = 3000;

const idOf = (answer: Answer): unknown => answer.body?.data?.transactionId;

/** Places an order and retries it with the same key once it is final: the two answers. */
async function placeAndReplay(kit: Kit): Promise<[Answer, Answer]> {
  const plain = anOrder();
  const body = { ...plain, idempotencyKey: `key-${String(plain.reference)}` };
  const first = await order(kit, body);
  await finalOf(kit, String(plain.reference));
  return [first, await order(kit, body)];
}

/** Places orders and waits for their finals: how the balance moved, in cents. */
async function spend(kit: Kit, count: number, afterFinals?: (finals: Answer[]) => Promise<unknown>): Promise<number> {
  const start = Number(await balance(kit));
  const bodies = Array.from({ length: count }, () => anOrder({ amount: 100 }));
  for (const body of bodies) await order(kit, body);
  const finals = await Promise.all(bodies.map((body) => finalOf(kit, String(body.reference))));
  await afterFinals?.(finals);
  return Math.round((Number(await balance(kit)) - start) * 100);
}

async function reversedOf(kit: Kit, reference: string): Promise<void> {
  await until(
    () => lookup(kit, reference),
    (answer) => answer.body.data.status === "REVERSED",
  );
}

/** The webhook bodies received for these lookups' orders, waiting for one per order at most a few seconds. */
async function webhooksFor(kit: Kit, finals: Answer[]): Promise<Map<string, { data: { status: string } }>> {
  const ids = new Set(finals.map(idOf));
  const deadline = Date.now() + WEBHOOK_PATIENCE_MS;
  const received = () =>
    new Map(
      kit.receiver.deliveries
        .map((delivery) => JSON.parse(delivery.body))
        .filter((event) => ids.has(event.data.transactionId))
        .map((event) => [event.data.transactionId as string, event]),
    );
  return until(
    async () => received(),
    (events) => events.size === ids.size || Date.now() > deadline,
  );
}

const QUIET = { failureRate: 0, reversalRate: 0 } as const;
const FAILING = { failureRate: 1, reversalRate: 0 } as const;

export const DEFECT_DEMOS = {
  answer_status_as_word: {
    misbehaves: async (kit) => typeof (await order(kit, anOrder())).body.data.statusCode !== "number",
  },
  replay_new_id: {
    misbehaves: async (kit) => {
      const [first, again] = await placeAndReplay(kit);
      return idOf(again) !== idOf(first);
    },
  },
  replay_stale_status: {
    misbehaves: async (kit) => (await placeAndReplay(kit))[1].body.data.statusCode === 0,
  },
  replay_missing_id: {
    misbehaves: async (kit) => idOf((await placeAndReplay(kit))[1]) === undefined,
  },
  replay_double_debit: {
    options: QUIET,
    misbehaves: async (kit) => {
      const start = Number(await balance(kit));
      await placeAndReplay(kit);
      return Number(await balance(kit)) !== start - 150;
    },
  },
  concurrent_duplicates: {
    misbehaves: async (kit) => {
      const body = anOrder({ idempotencyKey: "parallel-key" });
      const answers = await Promise.all(Array.from({ length: 5 }, () => order(kit, body)));
      return new Set(answers.map(idOf)).size > 1;
    },
  },
  mismatch_accepted: {
    misbehaves: async (kit) => {
      const body = anOrder({ idempotencyKey: "changed-key" });
      await order(kit, body);
      return (await order(kit, { ...body, amount: 20 })).status === 200;
    },
  },
  mismatch_wrong_code: {
    misbehaves: async (kit) => {
      const body = anOrder({ idempotencyKey: "changed-key" });
      await order(kit, body);
      return (await order(kit, { ...body, amount: 20 })).body.error.code !== "idempotency_payload_mismatch";
    },
  },
  mismatch_wrong_status: {
    misbehaves: async (kit) => {
      const body = anOrder({ idempotencyKey: "changed-key" });
      await order(kit, body);
      return (await order(kit, { ...body, amount: 20 })).status !== 409;
    },
  },
  missing_currency_accepted: {
    misbehaves: async (kit) => {
      const { currency: _left, ...withoutCurrency } = anOrder();
      return (await order(kit, withoutCurrency)).status === 200;
    },
  },
  key_255_rejected: {
    misbehaves: async (kit) => (await order(kit, anOrder({ idempotencyKey: "k".repeat(255) }))).status !== 200,
  },
  failed_order_keeps_id: {
    misbehaves: async ({ target }) => {
      const body = anOrder({ amount: 5000 });
      const answer = await call(`${target.url}/v1/airtime`, target.tokens.other, { body });
      return answer.body.success !== false || idOf(answer) !== undefined;
    },
  },
  failed_order_debited: {
    misbehaves: async (kit) => {
      const other = kit.target.tokens.other;
      const before = await balance(kit, other);
      await call(`${kit.target.url}/v1/airtime`, other, { body: anOrder({ amount: 5000 }) });
      return (await balance(kit, other)) !== before;
    },
  },
  failure_not_refunded: { options: FAILING, misbehaves: async (kit) => (await spend(kit, 2)) !== 0 },
  failure_refunded_twice: { options: FAILING, misbehaves: async (kit) => (await spend(kit, 2)) !== 0 },
  reversal_not_refunded: {
    options: { failureRate: 0, reversalRate: 1 },
    misbehaves: async (kit) => {
      const reversed = async (finals: Answer[]) => {
        for (const answer of finals) await reversedOf(kit, answer.body.data.ref);
      };
      return (await spend(kit, 2, reversed)) !== 0;
    },
  },
  balance_cached: {
    options: QUIET,
    misbehaves: async (kit) => (await spend(kit, 1)) !== -10_000,
  },
  no_webhook_for_failures: {
    options: FAILING,
    misbehaves: async (kit) => {
      let events = 0;
      await spend(kit, 2, async (finals) => (events = (await webhooksFor(kit, finals)).size));
      return events < 2;
    },
  },
  webhook_status_differs: {
    options: { ...FAILING, seed: 3 },
    misbehaves: async (kit) => {
      let differs = false;
      await spend(kit, 6, async (finals) => {
        const events = await webhooksFor(kit, finals);
        differs = finals.some((answer) => events.get(idOf(answer) as string)?.data.status !== answer.body.data.status);
      });
      return differs;
    },
  },
  final_back_to_pending: {
    options: QUIET,
    misbehaves: async (kit) => {
      const body = anOrder();
      await order(kit, body);
      await finalOf(kit, String(body.reference));
      const again = [await lookup(kit, String(body.reference)), await lookup(kit, String(body.reference))];
      return again.some((answer) => answer.body.data.status === "PENDING");
    },
  },
  cross_customer_lookup: {
    misbehaves: async (kit) => {
      const body = anOrder();
      await order(kit, body);
      return (await lookup(kit, String(body.reference), kit.target.tokens.other)).status !== 404;
    },
  },
  cross_customer_keys: {
    misbehaves: async (kit) => {
      const body = anOrder({ idempotencyKey: "shared-key" });
      const mine = await order(kit, body);
      const theirs = await call(`${kit.target.url}/v1/airtime`, kit.target.tokens.other, { body });
      return theirs.status !== 200 || idOf(theirs) === idOf(mine);
    },
  },
  no_token_accepted: {
    misbehaves: async ({ target }) => (await call(`${target.url}/v1/balance`, undefined)).status !== 401,
  },
  wrong_token_accepted: {
    misbehaves: async ({ target }) => (await call(`${target.url}/v1/balance`, "not-a-token")).status !== 401,
  },
  server_error_on_bad_amount: {
    misbehaves: async (kit) => (await order(kit, anOrder({ amount: "150" }))).status >= 500,
  },
} satisfies Record<ForeignDefect, Demo>;
