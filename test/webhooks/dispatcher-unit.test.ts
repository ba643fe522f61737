/**
 * The dispatcher alone, against the ports: an embedded virtual clock and
 * scheduler, a tiny in-test store, status changes fed by hand, a real inbox.
 */
import { afterEach, expect, it } from "vitest";
import { DEFAULT_STATUS_TABLE } from "../../src/contract/status-codes.ts";
import type { Customer, Order, WebhookEndpoint } from "../../src/domain/model.ts";
import type { CustomerPatch, Job, Scheduler, Store } from "../../src/domain/ports.ts";
import { createSeededRandom } from "../../src/domain/ids.ts";
import type { StatusChange } from "../../src/domain/service-types.ts";
import { createTimeKeeper } from "../../src/time/time-keeper.ts";
import { createWebhookDispatcher, WEBHOOK_ATTEMPT_JOB } from "../../src/webhooks/dispatcher.ts";
import type { WebhookDispatcherOptions } from "../../src/webhooks/webhook-settings.ts";
import { createWebhookInbox, type WebhookInbox } from "../../src/webhooks/inbox.ts";
import { generateWebhookSecret } from "../../src/webhooks/signing.ts";

const START = Date.parse("2026-03-02T09:00:00Z");
const cleanup: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** Only what the dispatcher uses: customers by id, read and patched. */
function tinyStore(customers: Customer[]): Store {
  const byId = new Map(customers.map((c) => [c.id, c]));
  const unused = () => {
    throw new Error("not used by the dispatcher");
  };
  return {
    getCustomer: async (id: string) => byId.get(id),
    patchCustomer: async (id: string, patch: CustomerPatch) => {
      const found = byId.get(id);
      if (found === undefined) return undefined;
      const { webhook, ...rest } = patch;
      const { webhook: _old, ...kept } = found;
      const patched: Customer = {
        ...kept,
        ...rest,
        ...(webhook === null ? {} : { webhook: webhook ?? found.webhook }),
      };
      byId.set(id, patched);
      return patched;
    },
    // The tests' own way to change a customer meanwhile; the dispatcher patches instead.
    putCustomer: async (customer: Customer) => {
      byId.set(customer.id, customer);
    },
    listCustomers: unused,
    findCustomerByToken: unused,
    getOrder: unused,
    getOrderByReference: unused,
    listOrders: unused,
    claimIdempotencyKey: unused,
    completeIdempotencyKey: unused,
    releaseIdempotencyKey: unused,
    reset: unused,
  } as unknown as Store;
}

function customer(id: string, webhook: WebhookEndpoint): Customer {
  return {
    id,
    name: id,
    tokens: [],
    apiKey: "k",
    wallets: [{ shortcode: null, balanceCents: 0, currency: "KES" }],
    webhook,
  };
}

function finalChange(customerId: string, reference: string, now: number): StatusChange {
  const order: Order = {
    id: `ord_${reference}`,
    customerId,
    reference,
    service: "safaricom",
    account: "+254712345678",
    amountCents: 10_000,
    currency: "KES",
    shortcode: null,
    status: 20,
    message: "Success",
    createdAt: now - 1000,
    updatedAt: now,
    history: [
      { status: 0, message: "Pending", at: now - 1000 },
      { status: 20, message: "Success", at: now },
    ],
  };
  return { order, previousStatus: 0, final: true, wallet: { shortcode: null, balanceCents: 0, currency: "KES" } };
}

async function inbox(secrets: string[]): Promise<WebhookInbox> {
  const created = createWebhookInbox({ secrets });
  await created.listen();
  cleanup.push(() => created.close());
  return created;
}

function setUp(customers: Customer[], options: WebhookDispatcherOptions = {}, seed = 1) {
  const time = createTimeKeeper({ mode: "virtual", startAt: START });
  const jobs: Job[] = [];
  const scheduler: Scheduler = {
    ...time.scheduler,
    handle: (type, handler) => time.scheduler.handle(type, handler),
    async schedule(job) {
      const id = await time.scheduler.schedule(job);
      jobs.push({ id, type: job.type, dueAt: job.dueAt, payload: job.payload });
      return id;
    },
  };
  const store = tinyStore(customers);
  const dispatcher = createWebhookDispatcher(
    { store, clock: time.clock, scheduler, random: createSeededRandom(seed), statusTable: DEFAULT_STATUS_TABLE },
    { schedule: [0, 1000, 60_000], timeout: 2000, jitter: 0, ...options },
  );
  cleanup.push(() => dispatcher.close());
  const advance = async (ms: number) => {
    await time.advance(ms);
    await dispatcher.settle();
  };
  return { time, jobs, store, dispatcher, advance };
}

it("attempts are scheduler jobs of type webhook.attempt with a plain JSON payload", async () => {
  const receiver = await inbox([generateWebhookSecret()]);
  receiver.respondWith(503);
  const { jobs, dispatcher, advance } = setUp([
    customer("a", { url: receiver.url, secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"] }),
  ]);
  await dispatcher.events.statusChanged(finalChange("a", "J-1", START));
  await advance(0);
  expect(jobs.map((job) => job.type)).toEqual([WEBHOOK_ATTEMPT_JOB, WEBHOOK_ATTEMPT_JOB]);
  for (const job of jobs) expect(JSON.parse(JSON.stringify(job))).toEqual(job);
  expect(jobs[1]?.payload).toEqual({ deliveryId: expect.stringMatching(/^dlv_/), scheduleIndex: 1 });
  expect(jobs[1]?.dueAt).toBe(START + 1000);
});

it("webhook-timestamp is the wall clock of the attempt, never the virtual clock", async () => {
  const secret = generateWebhookSecret();
  const receiver = await inbox([secret]);
  const { time, dispatcher, advance } = setUp([customer("a", { url: receiver.url, secrets: [secret] })]);
  // A virtual clock far in the past: the receiver would reject its seconds.
  await dispatcher.events.statusChanged(finalChange("a", "W-1", time.clock.now()));
  const before = Date.now() / 1000;
  await advance(0);
  const delivery = await receiver.waitFor("W-1", { timeoutMs: 1000 });
  const after = Date.now() / 1000;
  // Whole seconds of the wall clock while the attempt was made (±1 s for rounding).
  const timestamp = Number(delivery.headers["webhook-timestamp"]);
  expect(timestamp).toBeGreaterThanOrEqual(Math.floor(before) - 1);
  expect(timestamp).toBeLessThanOrEqual(Math.ceil(after) + 1);
  expect(START / 1000).toBeLessThan(before - 3600);
});

it("jitter is drawn from the seeded source: the same seed gives the same retry times, within ±jitter", async () => {
  const receiver = await inbox([generateWebhookSecret()]);
  receiver.respondWith(500);
  const nextTimes = async (seed: number) => {
    const { dispatcher, advance } = setUp(
      [customer("a", { url: receiver.url, secrets: [generateWebhookSecret()] })],
      { jitter: 0.5 },
      seed,
    );
    for (let i = 0; i < 5; i++) await dispatcher.events.statusChanged(finalChange("a", `JIT-${i}`, START));
    await advance(0);
    return (await dispatcher.deliveries.list()).map((d) => (d.nextAttemptAt ?? 0) - START);
  };
  const first = await nextTimes(11);
  expect(await nextTimes(11)).toEqual(first);
  expect(await nextTimes(12)).not.toEqual(first);
  for (const delay of first) {
    expect(delay).toBeGreaterThanOrEqual(500);
    expect(delay).toBeLessThanOrEqual(1500);
  }
});

it("rotation: every active secret signs, so a receiver holding only the new one accepts", async () => {
  const oldSecret = generateWebhookSecret();
  const newSecret = generateWebhookSecret();
  const receiver = await inbox([newSecret]);
  const { dispatcher, advance } = setUp([customer("a", { url: receiver.url, secrets: [oldSecret, newSecret] })]);
  await dispatcher.events.statusChanged(finalChange("a", "ROT-1", START));
  await advance(0);
  const delivery = await receiver.waitFor("ROT-1", { timeoutMs: 1000 });
  expect(delivery.headers["webhook-signature"]?.split(" ")).toHaveLength(2);
});

it("reset cancels the scheduled attempts of the customer's deliveries and forgets them", async () => {
  const receiver = await inbox([generateWebhookSecret()]);
  receiver.respondWith(503);
  const { time, dispatcher, advance } = setUp([
    customer("a", { url: receiver.url, secrets: [generateWebhookSecret()] }),
  ]);
  await dispatcher.events.statusChanged(finalChange("a", "RST-1", START));
  await advance(0);
  expect(await time.scheduler.size()).toBe(1);
  await dispatcher.reset("a");
  expect(await time.scheduler.size()).toBe(0);
  expect(await dispatcher.deliveries.list()).toEqual([]);
  await advance(120_000);
  expect(receiver.requests()).toHaveLength(1);
});

it("the URL is read at each attempt: a moved endpoint gets the retry, and an old URL's 410 does not disable the new one", async () => {
  const secret = generateWebhookSecret();
  const before = await inbox([secret]);
  const after = await inbox([secret]);
  const { store, dispatcher, advance } = setUp([customer("a", { url: before.url, secrets: [secret] })]);
  before.respondWith(({ attempt }) => (attempt === 1 ? 503 : 410));
  await dispatcher.events.statusChanged(finalChange("a", "MOVE-1", START));
  await advance(0);
  await store.putCustomer(customer("a", { url: after.url, secrets: [secret] }));
  await advance(1000);
  await after.waitFor("MOVE-1", { timeoutMs: 1000 });
  const [delivery] = await dispatcher.deliveries.list();
  const attempts = await dispatcher.deliveries.attempts(delivery?.id ?? "");
  expect(attempts.map((a) => [a.url, a.responseStatus])).toEqual([
    [before.url, 503],
    [after.url, 200],
  ]);
  expect((await store.getCustomer("a"))?.webhook?.disabled).toBeUndefined();
});

it("close() aborts an attempt in flight at once and starts no more", async () => {
  const receiver = await inbox([generateWebhookSecret()]);
  receiver.respondWith("hang");
  const { time, dispatcher } = setUp([customer("a", { url: receiver.url, secrets: [generateWebhookSecret()] })], {
    timeout: 60_000,
  });
  await dispatcher.events.statusChanged(finalChange("a", "CLOSE-1", START));
  await time.advance(0);
  await receiver.waitUntil(() => receiver.requests().length === 1, 2000);
  // With a 60 s attempt timeout, the attempt can only have ended this way because close() aborted it.
  await dispatcher.close();
  const [delivery] = await dispatcher.deliveries.list();
  expect((await dispatcher.deliveries.attempts(delivery?.id ?? ""))[0]?.error).toBe("shutdown");
  expect(await dispatcher.redeliver(delivery?.id ?? "")).toEqual({ kind: "closed" });
});

it("shared attempts: a job holds until its attempt is recorded, and a job run again after that sends nothing", async () => {
  const receiver = await inbox([generateWebhookSecret()]);
  receiver.respondWith(503);
  const time = createTimeKeeper({ mode: "virtual", startAt: START });
  // A scheduler shared with other processes, driven by hand: the test runs each job as a claim would.
  const jobs: Job[] = [];
  let run: ((job: Job) => Promise<void>) | undefined;
  const scheduler: Scheduler = {
    ...time.scheduler,
    handle: (_type, handler) => {
      run = handler;
    },
    async schedule(job) {
      const id = job.id ?? `job_${jobs.length}`;
      jobs.push({ id, type: job.type, dueAt: job.dueAt, payload: job.payload });
      return id;
    },
  };
  const store = tinyStore([customer("a", { url: receiver.url, secrets: [generateWebhookSecret()] })]);
  const dispatcher = createWebhookDispatcher(
    {
      store,
      clock: time.clock,
      scheduler,
      random: createSeededRandom(1),
      statusTable: DEFAULT_STATUS_TABLE,
      jobs: { kind: "shared", share: () => undefined },
    },
    { schedule: [0, 1000, 60_000], timeout: 2000, jitter: 0 },
  );
  cleanup.push(() => dispatcher.close());
  await dispatcher.events.statusChanged(finalChange("a", "SH-1", START));
  const [first] = jobs;
  if (first === undefined || run === undefined) throw new Error("no attempt job was scheduled");

  await run(first);
  // Returned only once the attempt was recorded and its retry scheduled.
  const [delivery] = await dispatcher.deliveries.list();
  expect(delivery?.attemptCount).toBe(1);
  expect(await dispatcher.deliveries.attempts(delivery?.id ?? "")).toHaveLength(1);
  expect(jobs.map((job) => job.id)).toEqual([first.id, delivery?.nextJobId]);

  // The same job again (a survivor after a lease ran out, a duplicate claim): the delivery waits for another.
  await run(first);
  expect(receiver.requests()).toHaveLength(1);
  const retry = jobs[1] as Job;
  await run(retry);
  await run(retry);
  expect(receiver.requests()).toHaveLength(2);
  expect((await dispatcher.deliveries.get(delivery?.id ?? ""))?.attemptCount).toBe(2);
});
