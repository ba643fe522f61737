/**
 * Many pending orders on the Redis store: N orders (default 100,000) placed
 * through the domain on a real redis-server, each due at a time spread
 * uniformly over a window that starts once all are placed, finalised by the
 * lifecycle's leased jobs in Redis (`src/redis/redis-scheduler.ts`), as a
 * simulator on `--store redis://…` with a real clock runs them. Lateness is
 * the wall-clock time each final status was stored minus its due time.
 * Target: p99 ≤ 50 ms. It also prints Redis's own count of commands per
 * order over the whole run (placing and finalising; each command a script
 * runs included), and the calls the process sent (a script call counts
 * once).
 *
 * `node --import tsx bench/redis-pending.ts [--orders N] [--window-ms MS] [--json]`;
 * `npm run bench` runs it with the Redis bars.
 */
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import type { Redis } from "ioredis";
import type { Order } from "../src/domain/model.ts";
import { ORDER_STEP_JOB } from "../src/domain/lifecycle.ts";
import { createEmbeddedDomain } from "../src/simulator/embedded-domain.ts";
import { createRoutedScheduler } from "../src/simulator/backend.ts";
import { createTimeKeeper } from "../src/time/time-keeper.ts";
import { connectRedisStore } from "../src/redis/connect-redis.ts";
import { createRedisScheduler } from "../src/redis/redis-scheduler.ts";
import { percentile } from "./pending-orders.ts";
import { commandsProcessed, startRedisServer } from "./redis-store.ts";

const REDIS_SERVER = process.env.REDIS_SERVER_PATH ?? "/usr/bin/redis-server";
const CUSTOMER = "cus_bench";
/** Orders placed at once: the domain awaits Redis for each, so one at a time would leave it idle. */
const LANES = 32;

export interface RedisPendingReport {
  readonly orders: number;
  readonly windowMs: number;
  readonly placeMs: number;
  readonly latenessMs: { readonly p50: number; readonly p99: number; readonly max: number };
  readonly commandsPerOrder: number;
  readonly callsPerOrder: number;
}

/** Counts the commands a client sends (a script call once, whatever it runs inside Redis). */
function countCalls(client: Redis): { readonly count: number } {
  const counter = { count: 0 };
  const send = client.sendCommand.bind(client);
  client.sendCommand = (...args: Parameters<Redis["sendCommand"]>) => {
    counter.count++;
    return send(...args);
  };
  return counter;
}

const dueAt = (order: Order): number => order.createdAt + (order.plan?.steps[0]?.afterMs ?? Number.NaN);

export async function runRedisPending(count: number, windowMs: number): Promise<RedisPendingReport | undefined> {
  if (!existsSync(REDIS_SERVER)) return undefined;
  const server = await startRedisServer();
  const connection = await connectRedisStore(`redis://127.0.0.1:${server.port}/0`);
  // A redis:// URL opens one connection, never a cluster.
  const sent = countCalls(connection.client as Redis);
  const scheduler = createRedisScheduler(connection.client, { onError: (error) => console.error(error) });
  // Every order's delay starts after the last is placed: about 0.2 ms each, with room to spare.
  const delayMs = Math.ceil(count * 0.4) + 5_000;
  // The lifecycle's steps on the shared scheduler, as a simulator's backend on Redis routes them.
  const time = createTimeKeeper({ mode: "real", onError: (error) => console.error(error) });
  const domain = createEmbeddedDomain({
    time,
    scheduler: createRoutedScheduler(time.scheduler, scheduler, new Set([ORDER_STEP_JOB])),
    store: connection.store,
    timing: { kind: "uniform", minMs: delayMs, maxMs: delayMs + windowMs },
  });
  await domain.store.putCustomer({
    id: CUSTOMER,
    name: "Bench",
    tokens: ["bench-token"],
    apiKey: "bench-key",
    wallets: [{ shortcode: null, balanceCents: Number.MAX_SAFE_INTEGER, currency: "KES" }],
  });
  const lateness = new Float64Array(count);
  let finals = 0;
  const allFinal = new Promise<void>((resolve) => {
    domain.events.subscribe({
      async statusChanged(change) {
        if (!change.final) return;
        lateness[finals++] = Date.now() - dueAt(change.order);
        if (finals === count) resolve();
      },
    });
  });
  scheduler.start();
  const commandsBefore = await commandsProcessed(server.port);
  const callsBefore = sent.count;
  const placeStart = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: LANES }, async () => {
      for (let i = next++; i < count; i = next++) {
        const outcome = await domain.service.placeOrder({
          customerId: CUSTOMER,
          request: {
            account: "0712345678",
            amountCents: 1_000,
            currency: "KES",
            reference: `pending-${i}`,
            idempotencyKey: `pending-${i}`,
          },
        });
        if (outcome.kind !== "placed") throw new Error(`order ${i} was not placed: ${outcome.kind}`);
      }
    }),
  );
  const placeMs = performance.now() - placeStart;
  if (placeMs > delayMs) console.warn(`placing took ${placeMs.toFixed(0)} ms, past the first due time`);
  await allFinal;
  const commands = (await commandsProcessed(server.port)) - commandsBefore;
  const calls = sent.count - callsBefore;
  await scheduler.stop();
  domain.time.stop();
  await connection.close();
  await server.stop();
  lateness.sort();
  return {
    orders: count,
    windowMs,
    placeMs,
    latenessMs: {
      p50: percentile(lateness, 50),
      p99: percentile(lateness, 99),
      max: lateness[count - 1] ?? Number.NaN,
    },
    commandsPerOrder: commands / count,
    callsPerOrder: calls / count,
  };
}

export function printRedisPending(report: RedisPendingReport | undefined): void {
  if (report === undefined) {
    console.log(`\npending orders on Redis: skipped, no redis-server at ${REDIS_SERVER}`);
    return;
  }
  const { latenessMs } = report;
  console.log(
    `\n${report.orders.toLocaleString("en-US")} pending orders on Redis (domain + Redis store + Redis scheduler, no HTTP), ` +
      `due over ${(report.windowMs / 1000).toFixed(0)} s, placed in ${(report.placeMs / 1000).toFixed(1)} s:`,
  );
  console.log(
    `  final status − due time: p50 ${latenessMs.p50.toFixed(0)} ms, p99 ${latenessMs.p99.toFixed(0)} ms, ` +
      `max ${latenessMs.max.toFixed(0)} ms (target p99 ≤ 50 ms) — ${latenessMs.p99 <= 50 ? "meets the target" : "BELOW the target"}`,
  );
  console.log(
    `  Redis commands per order, placed and finalised: ${report.commandsPerOrder.toFixed(1)} ` +
      `(calls sent: ${report.callsPerOrder.toFixed(1)}, a script counted once)`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      orders: { type: "string", default: "100000" },
      "window-ms": { type: "string", default: "60000" },
      json: { type: "boolean", default: false },
    },
  });
  const report = await runRedisPending(Number(values.orders), Number(values["window-ms"]));
  if (values.json) console.log(JSON.stringify(report ?? null));
  else printRedisPending(report);
}
