/**
 * Every magic test account, over HTTP: the number alone decides the outcome
 * or fault, with no scenario activated.
 */
import { expect, test } from "vitest";
import { MAGIC_ACCOUNTS, type MagicAccount, nationalForm } from "../../src/scenarios/magic-accounts.ts";
import { answered, type Harness, QA_CUSTOMER, QA_TOKEN, startHarness, useHarness } from "./scenario-harness.ts";

/** The simulator's default pending → final delay. */
const DEFAULT_DELAY = 2_000;

// On a port: some scenarios drop the connection.
const h = useHarness({ onPort: true });

interface Ctx {
  readonly account: string;
  readonly reference: string;
  order(key?: string): ReturnType<Harness["order"]>;
  status(): Promise<unknown>;
  balance(): Promise<number>;
  orders(): Promise<number>;
}

async function finalStatus(ctx: Ctx, expected: number): Promise<void> {
  const before = await ctx.balance();
  expect(answered(await ctx.order()).status).toBe(200);
  expect(await ctx.status()).toBe(0);
  await h.sim.clock.advance(DEFAULT_DELAY);
  expect(await ctx.status()).toBe(expected);
  // Failed-class finals refund; success keeps the debit.
  expect(await ctx.balance()).toBe(expected === 20 ? before - 100 : before);
}

async function retriedOnce(ctx: Ctx, first: (reply: Awaited<ReturnType<Harness["order"]>>) => void): Promise<void> {
  const before = await ctx.balance();
  first(await ctx.order("magic-key"));
  const retry = answered(await ctx.order("magic-key"));
  expect(retry.status).toBe(200);
  expect(retry.body.id).toBe((await h.lookup(ctx.reference, QA_TOKEN)).body.id);
  expect(await ctx.orders()).toBe(1);
  expect(await ctx.balance()).toBe(before - 100);
}

async function webhookStatuses(ctx: Ctx, count: number): Promise<(number | undefined)[]> {
  await h.inbox.waitUntil(() => h.webhooksFor(ctx.reference).length >= count);
  return h.webhooksFor(ctx.reference).map((delivery) => delivery.webhook?.status);
}

const CHECKS: Record<string, (ctx: Ctx) => Promise<void>> = {
  success: (ctx) => finalStatus(ctx, 20),
  failed: (ctx) => finalStatus(ctx, 2),
  timeout: (ctx) => finalStatus(ctx, 6),
  "stuck-pending": async (ctx) => {
    answered(await ctx.order());
    await h.sim.clock.advance(3_600_000);
    expect(await ctx.status()).toBe(0);
  },
  reversed: async (ctx) => {
    const before = await ctx.balance();
    answered(await ctx.order());
    await h.sim.clock.advance(DEFAULT_DELAY);
    expect(await ctx.status()).toBe(20);
    await h.sim.clock.advance(10_000);
    expect(await ctx.status()).toBe(8);
    expect(await ctx.balance()).toBe(before);
  },
  slow: async (ctx) => {
    const reply = answered(await ctx.order());
    expect(reply.status).toBe(200);
    expect(reply.elapsedMs).toBeGreaterThanOrEqual(2_900);
  },
  "intermediate-path": async (ctx) => {
    answered(await ctx.order());
    const seen = [];
    for (const step of [500, 1_000, 1_000]) {
      await h.sim.clock.advance(step);
      seen.push(await ctx.status());
    }
    expect(seen).toEqual([3, 31, 20]);
  },
  "lost-response": (ctx) => retriedOnce(ctx, (reply) => expect(reply.kind).toBe("network_error")),
  "error-after-commit": (ctx) => retriedOnce(ctx, (reply) => expect(answered(reply).status).toBe(500)),
  "reset-before-commit": async (ctx) => {
    expect((await ctx.order("magic-key")).kind).toBe("network_error");
    expect(await ctx.orders()).toBe(0);
    expect(answered(await ctx.order("magic-key")).status).toBe(200);
    expect(await ctx.orders()).toBe(1);
  },
  "503-twice": async (ctx) => {
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push(answered(await ctx.order("magic-key")).status);
    expect(statuses).toEqual([503, 503, 200]);
    expect(await ctx.orders()).toBe(1);
  },
  "rate-limited": async (ctx) => {
    const limited = answered(await ctx.order("magic-key"));
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("2");
    expect(answered(await ctx.order("magic-key")).status).toBe(200);
  },
  "operator-down": async (ctx) => {
    for (let i = 0; i < 3; i++) expect(answered(await ctx.order("magic-key")).status).toBe(502);
    expect(await ctx.orders()).toBe(0);
  },
  "insufficient-balance": async (ctx) => {
    const reply = answered(await ctx.order());
    expect(reply.status).toBe(402);
    expect(reply.body).not.toHaveProperty("id");
    expect(reply.body.code).toBe("insufficient_balance");
  },
  "duplicate-webhook": async (ctx) => {
    answered(await ctx.order());
    await h.sim.clock.advance(DEFAULT_DELAY);
    const [delivery] = h.webhooksFor(ctx.reference);
    expect(delivery).toBeDefined();
    await h.inbox.waitUntil(() => h.inbox.requests().filter((r) => r.webhookId === delivery?.webhookId).length === 3);
  },
  "out-of-order-webhook": async (ctx) => {
    answered(await ctx.order());
    await h.sim.clock.advance(DEFAULT_DELAY);
    expect(await webhookStatuses(ctx, 2)).toEqual([20, 0]);
  },
  "bad-signature-webhook": async (ctx) => {
    answered(await ctx.order());
    await h.sim.clock.advance(DEFAULT_DELAY);
    await h.inbox.waitUntil(() => h.inbox.rejected().some((rejection) => rejection.body.includes(ctx.reference)));
    expect(h.webhooksFor(ctx.reference)).toEqual([]);
  },
  "dropped-webhook": async (ctx) => {
    answered(await ctx.order());
    await h.sim.clock.advance(60_000);
    await h.sim.settle();
    expect(await ctx.status()).toBe(20);
    expect(h.webhooksFor(ctx.reference)).toEqual([]);
  },
  "webhook-before-response": async (ctx) => {
    const reply = answered(await ctx.order());
    expect(reply.body.status).toBe(20);
    expect(h.webhooksFor(ctx.reference).map((delivery) => delivery.webhook?.status)).toEqual([20]);
  },
  "delayed-webhook": async (ctx) => {
    answered(await ctx.order());
    await h.sim.clock.advance(DEFAULT_DELAY);
    expect(await ctx.status()).toBe(20);
    expect(h.webhooksFor(ctx.reference)).toEqual([]);
    await h.sim.clock.advance(30_000);
    expect(await webhookStatuses(ctx, 1)).toEqual([20]);
  },
};

function checkFor(entry: MagicAccount): (ctx: Ctx) => Promise<void> {
  const direct = CHECKS[entry.name];
  if (direct !== undefined) return direct;
  // `<service>-success` / `<service>-failed` on the other operators' blocks.
  if (entry.name === `${entry.service}-success`) return CHECKS.success as (ctx: Ctx) => Promise<void>;
  if (entry.name === `${entry.service}-failed`) return CHECKS.failed as (ctx: Ctx) => Promise<void>;
  throw new Error(`no test for the magic account ${entry.name}: add one to CHECKS`);
}

test.each(MAGIC_ACCOUNTS.map((entry, index) => ({ ...entry, index })))(
  "$account ($name): $behaviour",
  async (entry) => {
    const reference = `magic-${entry.name}`;
    // Half the numbers are sent in national form, half in E.164: both must work.
    const account = entry.index % 2 === 0 ? nationalForm(entry.account) : entry.account;
    const ctx: Ctx = {
      account,
      reference,
      // Keys are scoped per test so no two tests share one.
      order: (key) =>
        h.order({ account, reference, token: QA_TOKEN, ...(key === undefined ? {} : { key: `${reference}:${key}` }) }),
      status: async () => (await h.lookup(reference, QA_TOKEN)).body.status,
      balance: () => h.balance(QA_TOKEN),
      orders: async () => {
        const listed = await h.admin("GET", `/_sim/orders?customer=${QA_CUSTOMER}&reference=${reference}`);
        return (listed.body.orders as unknown[]).length;
      },
    };
    await checkFor(entry)(ctx);
    // The lookup agrees with the operator the number belongs to.
    const lookup = await h.lookup(reference, QA_TOKEN);
    if (lookup.status === 200) expect(lookup.body.service).toBe(entry.service);
    const journal = await h.admin("GET", `/_sim/journal?customer=${QA_CUSTOMER}`);
    const entries = journal.body.entries as { fired: string[] }[];
    expect(entries.some((journalEntry) => journalEntry.fired.includes(`magic-accounts/${entry.name}`))).toBe(true);
  },
);

test("magic accounts are off with magicAccounts: false", async () => {
  const plain = await startHarness({ scenarios: { magicAccounts: false } }, { onPort: true });
  try {
    const reply = answered(await plain.order({ account: "0700000017", reference: "m-off", token: QA_TOKEN }));
    expect(reply.status).toBe(200);
  } finally {
    await plain.close();
  }
});
