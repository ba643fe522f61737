/**
 * The virtual clock runs every attempt due in an advance, retries included,
 * each stamped with its own due time; and an advance never waits on one
 * customer's hanging receiver to run another customer's attempt that is due.
 */
import { afterEach, expect, it, vi } from "vitest";
import { admin, PENDING_MS, perTest, placeOrder } from "./support.ts";

const made = perTest();
const sim = made.sim;
const customer = made.customer;

afterEach(() => made.cleanUp());

const HOUR = 3_600_000;

it("advance(1h) runs all four attempts of 0,5s,5m,30m,2h due in that hour, each at its due time", async () => {
  const env = await sim({ schedule: "0,5s,5m,30m,2h", timeout: "500ms" });
  const down = await customer(env, "down", { respond: 500 });
  await placeOrder(env.url, down.token, "HOUR-1");
  await env.sim.clock.advance(PENDING_MS);
  const finalAt = env.sim.clock.now();
  // The first attempt ran in that advance; the hour holds the next three.
  await env.sim.clock.advance(HOUR);

  const [listed] = (await admin(env.url, "GET", "/deliveries?customer=down")).body.deliveries;
  const detail = (await admin(env.url, "GET", `/deliveries/${listed.id}`)).body;
  const due = [0, 5_000, 305_000, 2_105_000].map((offset) => finalAt + offset);
  expect(detail.attempts.map((a: { scheduledAt: string }) => Date.parse(a.scheduledAt))).toEqual(due);
  expect(detail.attempts.map((a: { sentAt: string }) => Date.parse(a.sentAt))).toEqual(due);
  expect(down.inbox.requests()).toHaveLength(4);
  expect(detail.state).toBe("pending");
  // The fifth is due 2 h after the fourth, outside the hour.
  expect(Date.parse(detail.nextAttemptAt)).toBe(finalAt + 2_105_000 + 2 * HOUR);

  // A day later the schedule is used up: the delivery is failed, after exactly five attempts.
  await env.sim.clock.advance(24 * HOUR);
  const failed = (await admin(env.url, "GET", `/deliveries/${listed.id}`)).body;
  expect(failed.state).toBe("failed");
  expect(failed.attempts).toHaveLength(5);
  expect(Date.parse(failed.attempts[4].sentAt)).toBe(finalAt + 2_105_000 + 2 * HOUR);
});

it("one advance through a jittered schedule runs every retry in time order, on the seeded times", async () => {
  const run = async (seed: number) => {
    const env = await sim({ schedule: "0,5s,5m,30m", timeout: "500ms", jitter: 0.1 }, { seed });
    const down = await customer(env, `down-${seed}`, { respond: 503 });
    for (let i = 0; i < 3; i++) await placeOrder(env.url, down.token, `JIT-${i}`);
    await env.sim.clock.advance(HOUR);
    const times: number[][] = [];
    for (const delivery of (await admin(env.url, "GET", `/deliveries?customer=${down.id}`)).body.deliveries) {
      const attempts = (await admin(env.url, "GET", `/deliveries/${delivery.id}`)).body.attempts;
      const sent = attempts.map((a: { sentAt: string }) => Date.parse(a.sentAt) - Date.parse(delivery.createdAt));
      times.push(sent);
      expect(delivery.state).toBe("failed");
    }
    return times;
  };
  const first = await run(11);
  for (const sent of first) {
    expect(sent).toHaveLength(4);
    // In order, each retry 5 s / 5 m / 30 m ±10 % after the attempt before it.
    [5_000, 300_000, 1_800_000].forEach((delay, i) => {
      const gap = (sent[i + 1] as number) - (sent[i] as number);
      expect(gap).toBeGreaterThanOrEqual(Math.floor(delay * 0.9));
      expect(gap).toBeLessThanOrEqual(Math.ceil(delay * 1.1));
    });
  }
  // The same seed gives the same times, whatever the network did.
  expect(await run(11)).toEqual(first);
});

it("an attempt due while another customer's receiver hangs is sent at its due time and lands before that one ends", async () => {
  // A timeout far beyond what the test waits for: the hanging attempt is provably still out.
  const env = await sim({ schedule: "0,5s,5m", timeout: "20s" });
  const hanging = await customer(env, "hanging", { respond: "hang" });
  const healthy = await customer(env, "healthy");
  await placeOrder(env.url, hanging.token, "HANG-1");
  await env.sim.clock.advance(300);
  // Final 300 ms after the hanging customer's: due while the hanging attempt is out.
  await placeOrder(env.url, healthy.token, "HEALTHY-1");
  const finalAt = env.sim.clock.now() + PENDING_MS;

  const advancing = env.sim.clock.advance(HOUR);
  const received = await healthy.inbox.waitFor("HEALTHY-1", { timeoutMs: 15_000 });
  expect(received.attempt).toBe(1);
  await hanging.inbox.waitUntil(() => hanging.inbox.requests().length === 1, 15_000);
  // Recorded once the receiver's answer is read, a moment after the inbox has it.
  const delivered = await vi.waitFor(async () => {
    const [found] = await env.dispatcher.deliveries.list({ customerId: "healthy", state: "delivered" });
    expect(found).toBeDefined();
    return found;
  });
  expect(delivered?.deliveredAt).toBe(finalAt);
  const [attempt] = await env.dispatcher.deliveries.attempts(delivered?.id ?? "");
  expect(attempt?.sentAt).toBe(finalAt);
  // All while the hanging customer's first attempt, due earlier, is still out.
  const [stillOut] = await env.dispatcher.deliveries.list({ customerId: "hanging" });
  expect(stillOut?.attemptCount).toBe(0);

  // Proven; drop the hanging connection rather than wait out the timeout.
  await hanging.inbox.close();
  await advancing;
  const retried = (await env.dispatcher.deliveries.attempts(stillOut?.id ?? "")).map((a) => a.sentAt);
  // The hanging customer's retries still ran in the same advance, 5 s and 5 min after its first attempt.
  expect(retried.slice(1).map((at) => at - (retried[0] as number))).toEqual([5_000, 305_000]);
});
