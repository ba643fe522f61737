/**
 * What one order costs Redis, call by call (`npm run bench:redis-commands`):
 * orders placed one at a time through the domain on the Redis store, then
 * finalised by the lifecycle's leased jobs on the Redis scheduler, as a
 * simulator with a real clock runs them, on one redis-server and on a
 * six-node Redis Cluster (three masters). `MONITOR` on each master shows
 * every command, those a script runs included; each is put down to what
 * sent it (a script, by the shape of its first key, with the commands it
 * ran; any other command by name), per order and per master. Round trips
 * are counted in the process: commands sent in one turn of the event loop
 * go out together and are one wait.
 *
 * The scheduler is started only once every order is placed, so placing and
 * finalising are counted apart; finalising includes the looks at the
 * queue (one claim script per shard each look) made while the steps ran.
 *
 * `node --import tsx bench/redis-commands.ts [--orders N]`
 */
import { parseArgs } from "node:util";
import type { Cluster, Redis } from "ioredis";
import { ORDER_STEP_JOB } from "../src/domain/lifecycle.ts";
import { connectRedisStore } from "../src/redis/connect-redis.ts";
import { createRedisScheduler } from "../src/redis/redis-scheduler.ts";
import { createEmbeddedDomain } from "../src/simulator/embedded-domain.ts";
import { createRoutedScheduler } from "../src/simulator/backend.ts";
import { createTimeKeeper } from "../src/time/time-keeper.ts";
import { type Census, watchCommands } from "../test/support/command-census.ts";
import { startRedisCluster } from "../test/support/redis-cluster.ts";
import { startRedisServer } from "./redis-store.ts";

const CUSTOMERS = 100;

/** Counts commands sent and the turns of the event loop they went out in (a round trip each). */
function countRoundTrips(client: Redis | Cluster): { commands: number; roundTrips: number } {
  const counter = { commands: 0, roundTrips: 0 };
  let open = false;
  const send = client.sendCommand.bind(client) as (...args: unknown[]) => unknown;
  (client as { sendCommand: (...args: unknown[]) => unknown }).sendCommand = (...args: unknown[]) => {
    counter.commands++;
    if (!open) {
      open = true;
      counter.roundTrips++;
      setImmediate(() => {
        open = false;
      });
    }
    return send(...args);
  };
  return counter;
}

interface Phase {
  readonly census: Census;
  readonly sent: number;
  readonly roundTrips: number;
}

interface Measured {
  readonly place: Phase;
  readonly finalise: Phase;
}

async function measure(url: string, masters: readonly number[], orders: number): Promise<Measured> {
  const connection = await connectRedisStore(url);
  const counter = countRoundTrips(connection.client);
  const scheduler = createRedisScheduler(connection.client, { onError: (error) => console.error(error) });
  const time = createTimeKeeper({ mode: "real", onError: (error) => console.error(error) });
  const domain = createEmbeddedDomain({
    time,
    scheduler: createRoutedScheduler(time.scheduler, scheduler, new Set([ORDER_STEP_JOB])),
    store: connection.store,
    timing: { kind: "fixed", ms: 1 },
  });
  for (let c = 0; c < CUSTOMERS; c++) {
    await domain.store.putCustomer({
      id: `cus_${c}`,
      name: "Bench",
      tokens: [`bench-token-${c}`],
      apiKey: "bench-key",
      wallets: [{ shortcode: null, balanceCents: 1_000_000_000, currency: "KES" }],
    });
  }
  let finals = 0;
  const allFinal = new Promise<void>((resolve) => {
    domain.events.subscribe({
      async statusChanged(change) {
        if (change.final && ++finals === orders) resolve();
      },
    });
  });
  const phase = async (run: () => Promise<void>): Promise<Phase> => {
    const census = await watchCommands(masters);
    const [sent, trips] = [counter.commands, counter.roundTrips];
    await run();
    return { census: await census.stop(), sent: counter.commands - sent, roundTrips: counter.roundTrips - trips };
  };
  const place = await phase(async () => {
    for (let i = 0; i < orders; i++) {
      const outcome = await domain.service.placeOrder({
        customerId: `cus_${i % CUSTOMERS}`,
        request: {
          account: "0712345678",
          amountCents: 1_000,
          currency: "KES",
          reference: `r-${i}`,
          idempotencyKey: `k-${i}`,
        },
      });
      if (outcome.kind !== "placed") throw new Error(`order ${i} was not placed: ${outcome.kind}`);
    }
  });
  const finalise = await phase(async () => {
    scheduler.start();
    await allFinal;
    // Every job's completion too: a step announces its final status before its job is completed.
    await scheduler.stop();
  });
  time.stop();
  await connection.close();
  return { place, finalise };
}

function printPhase(label: string, phase: Phase, orders: number): void {
  const total = [...phase.census.perCall.values()].reduce((sum, one) => sum + one, 0);
  console.log(
    `\n${label}: ${(total / orders).toFixed(1)} commands per order in Redis, ` +
      `${(phase.sent / orders).toFixed(1)} sent, ${(phase.roundTrips / orders).toFixed(1)} round trips`,
  );
  for (const [call, count] of [...phase.census.perCall].sort((a, b) => b[1] - a[1])) {
    console.log(`  ${(count / orders).toFixed(2).padStart(6)}  ${call}`);
  }
  const perMaster = [...phase.census.perMasterCall.values()].map((calls) =>
    [...calls.values()].reduce((sum, one) => sum + one, 0),
  );
  if (perMaster.length > 1) {
    console.log(`  per master: ${perMaster.map((count) => (count / orders).toFixed(1)).join(", ")} per order`);
  }
}

async function onOneServer(orders: number): Promise<void> {
  const server = await startRedisServer();
  try {
    const measured = await measure(`redis://127.0.0.1:${server.port}/0`, [server.port], orders);
    console.log(`\n## One redis-server, ${orders} orders of ${CUSTOMERS} customers, placed one at a time`);
    printPhase("placing", measured.place, orders);
    printPhase("finalising (the step, its claim, idle looks)", measured.finalise, orders);
  } finally {
    await server.stop();
  }
}

async function onCluster(orders: number): Promise<void> {
  const cluster = await startRedisCluster();
  try {
    const measured = await measure(cluster.url, await cluster.masterPorts(), orders);
    console.log(`\n## Redis Cluster, three masters, ${orders} orders of ${CUSTOMERS} customers`);
    printPhase("placing", measured.place, orders);
    printPhase("finalising (the step, its claim, idle looks)", measured.finalise, orders);
  } finally {
    await cluster.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { orders: { type: "string", default: "600" } } });
  const orders = Number(values.orders);
  await onOneServer(orders);
  await onCluster(orders);
}
