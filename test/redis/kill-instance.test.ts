/**
 * kill -9 of one of two `serve` processes on one Redis, in the middle of a
 * load: every order it acknowledged is still there, a retry of its key on
 * the survivor replays the same id (never a second charge), and the money
 * adds up — the balance plus every stored order is what the customer had.
 * The survivor also finishes the killed instance's orders and makes the
 * webhook attempts it held, each message accepted exactly once. All of it on
 * one redis-server, and again on a six-node Redis Cluster.
 *
 * The webhook test is the one a loaded machine shook: `npm run
 * stress:kill-instance` runs it 50 times in a row (KILL_INSTANCE_REPEATS
 * more after the first), each on an emptied database; run it beside a busy
 * loop on each core. A run that fails prints what Redis holds of each
 * message not yet as far as expected: its delivery, its slots' jobs (due,
 * leased, or gone) and its attempts.
 */
import { appendFileSync } from "node:fs";
import { Redis } from "ioredis";
import { expect, it } from "vitest";
import type { Delivery } from "../../src/webhooks/ports.ts";
import { startCountingReceiver } from "../support/counting-receiver.ts";
import { traceDeliveries } from "../support/delivery-trace.ts";
import { balanceOf, bearer, send } from "../support/http.ts";
import { startServe } from "../support/processes.ts";
import { describeOnEachRedis } from "../support/shared-redis.ts";

const TOKEN = "kill-instance-token-01";
const ADMIN = "kill-instance-admin-0001";
const BALANCE = 100_000;
/** Extra runs of the webhook test, for the stress script; none in the default suite. */
const REPEATS = Number(process.env.KILL_INSTANCE_REPEATS ?? "0");
/** A file each run appends its figures to, for the stress script (the reporter does not print every run's). */
const FIGURES = process.env.KILL_INSTANCE_FIGURES;

const order = (url: string, i: number) =>
  send(url, "/v1/airtime", {
    method: "POST",
    headers: { ...bearer(TOKEN), "idempotency-key": `kill-${i}` },
    body: { account: "0712345678", amount: 10, currency: "KES", reference: `kill-${i}` },
  });

describeOnEachRedis("kill -9 of an instance", (redis) => {
  it("loses no acknowledged order, and no key replays to a new id", { timeout: 90_000 }, async () => {
    const args = [
      "--store",
      await redis.storeUrl(0),
      "--demo-token",
      TOKEN,
      "--admin-token",
      ADMIN,
      "--timing",
      "1h",
      "--quiet",
    ];
    const doomed = await startServe(args);
    const survivor = await startServe(args);
    try {
      const acknowledged = new Map<number, string>();
      let sent = 0;
      const worker = async () => {
        for (;;) {
          const i = sent++;
          if (i >= 2_000) return;
          const reply = await order(doomed.url, i).catch(() => undefined);
          if (reply === undefined) return; // the instance is gone
          if (reply.status === 200) acknowledged.set(i, reply.body.id as string);
        }
      };
      const load = Promise.all(Array.from({ length: 16 }, () => worker()));
      await expect.poll(() => acknowledged.size, { timeout: 30_000 }).toBeGreaterThan(100);
      doomed.server.child.kill("SIGKILL");
      await load;
      expect(await doomed.server.exited).toBeNull();

      for (const [i, id] of acknowledged) {
        const replay = await order(survivor.url, i);
        expect(replay.status).toBe(200);
        expect(replay.headers.get("idempotent-replayed")).toBe("true");
        expect(replay.body.id).toBe(id);
      }
      const stored = await send(survivor.url, "/_sim/orders?limit=1000&customer=demo", { headers: bearer(ADMIN) });
      let orders = (stored.body.orders as unknown[]).length;
      for (let cursor = stored.body.next_cursor as string | null; cursor !== null;) {
        const page = await send(survivor.url, `/_sim/orders?limit=1000&customer=demo&cursor=${cursor}`, {
          headers: bearer(ADMIN),
        });
        orders += (page.body.orders as unknown[]).length;
        cursor = page.body.next_cursor as string | null;
      }
      expect(orders).toBeGreaterThanOrEqual(acknowledged.size);
      expect(await balanceOf(survivor.url, TOKEN)).toBe(BALANCE - orders * 10);
    } finally {
      await doomed.server.stop(1_000);
      await survivor.server.stop(5_000);
    }
  });

  it("lets the survivor finish the orders of the killed instance", { timeout: 120_000 }, async () => {
    const args = ["--store", await redis.storeUrl(1), "--demo-token", TOKEN, "--timing", "2s", "--quiet"];
    const doomed = await startServe(args);
    const survivor = await startServe(args);
    try {
      const placed: number[] = [];
      for (let batch = 0; batch < 5; batch++) {
        const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => order(doomed.url, batch * 40 + i)));
        replies.forEach((reply, i) => {
          if (reply.status === 200) placed.push(batch * 40 + i);
        });
      }
      doomed.server.child.kill("SIGKILL");
      expect(placed).toHaveLength(200);
      // Every step the dead instance held (scheduled, or claimed and cut off) is run by the survivor.
      const pending = async () => {
        let left = 0;
        for (const i of placed) {
          const reply = await send(survivor.url, `/v1/airtime/kill-${i}`, { headers: bearer(TOKEN) });
          if (reply.body.status !== 20) left++;
        }
        return left;
      };
      await expect.poll(pending, { timeout: 60_000, interval: 1_000 }).toBe(0);
    } finally {
      await doomed.server.stop(1_000);
      await survivor.server.stop(5_000);
    }
  });

  let webhookRuns = 0;
  const webhookTest = { timeout: 240_000, repeats: REPEATS };
  it("lets the survivor make the webhook attempts the killed instance held", webhookTest, async () => {
    // Down (and slow to say so) until after the kill: every message waits for a retry, many in flight.
    const receiver = await startCountingReceiver({ down: true, downLatencyMs: 300 });
    const schedule = ["0", ...Array.from({ length: 200 }, () => "500ms")].join(",");
    // A cluster is emptied when the number changes; a server's database is emptied here.
    const store = await redis.storeUrl(2 + (webhookRuns++ % 2));
    if (store.startsWith("redis://") && webhookRuns > 1) await emptyDatabase(store);
    const args = [
      ...["--store", store, "--demo-token", TOKEN, "--admin-token", ADMIN],
      ...["--timing", "100ms", "--webhook-url", receiver.url, "--webhook-schedule", schedule, "--quiet"],
    ];
    // A stress beside a busy loop on each core starts a process slowly; what is measured is what follows.
    const doomed = await startServe(args, 60_000);
    const survivor = await startServe(args, 60_000);
    const run = webhookRuns;
    let acknowledged = 0;
    const listed = async (state?: string) => {
      let count = 0;
      let cursor: string | null = "";
      while (cursor !== null) {
        const query = `limit=1000${state === undefined ? "" : `&state=${state}`}${cursor === "" ? "" : `&cursor=${cursor}`}`;
        const page = await send(survivor.url, `/_sim/deliveries?${query}`, { headers: bearer(ADMIN) });
        count += (page.body.deliveries as { attemptCount: number }[]).filter((d) => d.attemptCount > 0).length;
        cursor = page.body.next_cursor as string | null;
      }
      return count;
    };
    try {
      const replies = await Promise.all(
        Array.from({ length: 200 }, (_, i) => order(i % 2 === 0 ? doomed.url : survivor.url, 10_000 + i)),
      );
      acknowledged = replies.filter((reply) => reply.status === 200).length;
      expect(replies.filter((reply) => reply.status !== 200)).toEqual([]);
      // Every order is final and its webhook refused at least once: each now waits for a retry.
      const allWaiting = expect.poll(() => listed("pending"), { timeout: 30_000, interval: 250 }).toBe(200);
      const logs = () => [doomed, survivor].map(({ server }) => server.output().slice(-2_000));
      await traced(allWaiting, store, (delivery) => delivery.state !== "pending" || delivery.attemptCount === 0, logs);
      doomed.server.child.kill("SIGKILL");
      expect(await doomed.server.exited).toBeNull();
      receiver.down = false;

      const accepted = () => [...receiver.messages.values()].filter((message) => message.accepted > 0).length;
      const unaccepted = (delivery: Delivery) => (receiver.messages.get(delivery.messageId)?.accepted ?? 0) === 0;
      await traced(expect.poll(accepted, { timeout: 60_000, interval: 500 }).toBe(200), store, unaccepted, logs);
      expect(new Set([...receiver.messages.values()].map((message) => message.body.reference)).size).toBe(200);
      expect([...receiver.messages.values()].filter((message) => message.accepted !== 1)).toEqual([]);
      await expect.poll(() => listed("delivered"), { timeout: 10_000, interval: 250 }).toBe(200);
    } finally {
      // One line a run, passed or not, so the stress prints its figures.
      const messages = [...receiver.messages.values()];
      const accepted = messages.filter((message) => message.accepted > 0).length;
      const twice = messages.filter((message) => message.accepted > 1).length;
      const figures =
        `kill-instance webhook run ${run} on ${store.split(":")[0]}: ${acknowledged} orders acknowledged, ` +
        `${messages.length} messages sent, ${accepted} accepted, ${twice} accepted more than once`;
      console.log(figures);
      if (FIGURES !== undefined) appendFileSync(FIGURES, `${new Date().toISOString()} ${figures}\n`);
      await doomed.server.stop(1_000);
      await survivor.server.stop(5_000);
      await receiver.close();
    }
  });
});

/**
 * Awaits `check`; if it fails, prints what Redis holds of the deliveries `unfinished` picks and the
 * end of each instance's output (a job that threw is reported there), then fails.
 */
async function traced(
  check: Promise<void>,
  store: string,
  unfinished: (delivery: Delivery) => boolean,
  logs: () => string[],
): Promise<void> {
  try {
    await check;
  } catch (error) {
    console.log([await traceDeliveries(store, "demo", unfinished), ...logs()].join("\n"));
    throw error;
  }
}

async function emptyDatabase(url: string): Promise<void> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    await client.flushdb();
  } finally {
    client.disconnect();
  }
}
