/**
 * What Redis holds of a customer's webhook deliveries that have not got as
 * far as a test expects, read straight from the keys: each delivery's state,
 * the slot and job it waits for, and for each of its slots' jobs whether it
 * is due (and when), leased (and until when) or only has its JSON, and of
 * an order with no delivery yet its lifecycle step jobs alike. Printed
 * when a multi-instance webhook test fails, it tells a message never
 * scheduled from one claimed by a dead instance or delivered and not
 * counted.
 */
import { Cluster, Redis } from "ioredis";
import { clusterSeeds } from "../../src/redis/connect-redis.ts";
import { jobShards, shardOf } from "../../src/redis/job-shards.ts";
import type { Delivery, DeliveryAttempt } from "../../src/webhooks/ports.ts";

const PREFIX = "ah:";
const SHARDS = 16;

/**
 * One line per delivery of `customerId` that `unfinished` picks, then its
 * jobs and attempts, and the orders of that customer with no delivery at
 * all; `store` is the simulators' `--store` URL.
 *
 * @example
 * console.log(await traceDeliveries(store, "demo", (delivery) => delivery.attemptCount === 0));
 */
export async function traceDeliveries(
  store: string,
  customerId: string,
  unfinished: (delivery: Delivery) => boolean,
): Promise<string> {
  const client = store.startsWith("redis+cluster://") ? new Cluster(clusterSeeds(store)) : new Redis(store);
  try {
    const records = Object.values(await client.hgetall(`${PREFIX}{${customerId}}:dlv:records`)).map(
      (json) => JSON.parse(json) as Delivery,
    );
    const lines = [`${records.length} deliveries of ${customerId} at ${Date.now()}`];
    for (const delivery of records.filter(unfinished)) lines.push(...(await traceOne(client, delivery)));
    lines.push(...(await ordersWithout(client, customerId, records)));
    return lines.join("\n");
  } finally {
    client.disconnect();
  }
}

async function traceOne(client: Redis | Cluster, delivery: Delivery): Promise<string[]> {
  const { id, state, attemptCount, scheduleIndex, nextJobId, nextAttemptAt } = delivery;
  const lines = [`${id} ${state}, ${attemptCount} attempts, waits for ${nextJobId} at ${nextAttemptAt}`];
  for (let slot = Math.max(0, scheduleIndex - 1); slot <= scheduleIndex + 1; slot++) {
    lines.push(await traceJob(client, `${id}/${slot}`));
  }
  const attempts = (await client.lrange(`${PREFIX}{${delivery.customerId}}:dlv:attempts:${id}`, 0, -1)).map(
    (json) => JSON.parse(json) as DeliveryAttempt,
  );
  const told = attempts.map((a) => `#${a.number} due ${a.scheduledAt} sent ${a.sentAt} ${a.responseStatus ?? a.error}`);
  lines.push(`  attempts: ${told.join(" | ")}`);
  return lines;
}

async function ordersWithout(client: Redis | Cluster, customerId: string, deliveries: readonly Delivery[]) {
  const announced = new Set(deliveries.map((delivery) => delivery.orderId));
  const book = await client.hgetall(`${PREFIX}{${customerId}}:book`);
  const silent = Object.entries(book)
    .filter(([field]) => field.startsWith("o:"))
    .map(([, json]) => JSON.parse(json) as { id: string; status: number; history: unknown[] })
    .filter((order) => !announced.has(order.id));
  const lines = [`${silent.length} orders with no delivery`];
  for (const order of silent) {
    lines.push(`  ${order.id} status ${order.status}, ${order.history.length} steps`);
    // The lifecycle's step jobs (as the domain names them) around the step the order is at.
    for (let step = 0; step <= order.history.length + 1; step++) {
      lines.push(`  ${await traceJob(client, `step_${order.id}_${step}`)}`);
    }
  }
  return lines;
}

/** Where a job is: due (and when), leased (and until when), and its JSON. */
async function traceJob(client: Redis | Cluster, job: string): Promise<string> {
  const keys = jobShards(PREFIX, SHARDS)[shardOf(job, SHARDS)];
  if (keys === undefined) return `  job ${job}: no shard`;
  const [due, leased, data] = await Promise.all([
    client.zscore(keys.due, job),
    client.zscore(keys.leased, job),
    client.hget(keys.data, job),
  ]);
  return `  job ${job}: due ${due}, leased until ${leased}, JSON ${data}`;
}
