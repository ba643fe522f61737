/**
 * The backend seam: the one place where a simulator's storage (the memory
 * store or Redis) and its clock (real or virtual) are chosen. Whatever
 * differs between them comes out of `openBackend` as ports, and everything
 * above wires itself from those without asking which it got.
 *
 * ```
 *                 settings (store, clock)
 *                          │
 *                    openBackend()
 *              ┌───────────┴────────────┐
 *           memory                    Redis
 *   memory store, own clock   Redis store, scheduler shared by every
 *   and scheduler, journal,   process (lifecycle steps; webhook attempts
 *   state file                with a real clock), shared virtual clock,
 *                             delivery log, journal, attempt counters
 *              └───────────┬────────────┘
 *   store · time · scheduler · jobs · deliveryStore · attemptCounters ·
 *   journal · persistence · advance · start · stop · close
 *                          │
 *             createSimulator → domain, plugins, HTTP
 * ```
 */
import type { StatusTable } from "../contract/status-codes.ts";
import { ORDER_STEP_JOB } from "../domain/lifecycle.ts";
import { finalIn } from "../domain/order-retention.ts";
import type { Job, JobPlacement, Scheduler, Store } from "../domain/ports.ts";
import type { SharedAttemptCounters } from "../domain/scenario-engine.ts";
import type { Journal } from "../http/journal.ts";
import { connectRedisStore, guardUnavailable, isRedisUrl } from "../redis/connect-redis.ts";
import { checkDurability, type RedisDurability } from "../redis/durability.ts";
import { createRedisAttemptCounters } from "../redis/redis-attempt-counters.ts";
import { createRedisDeliveryStore } from "../redis/redis-delivery-store.ts";
import { claimShardCount } from "../redis/job-shards.ts";
import { claimKeyLayout } from "../redis/redis-keys.ts";
import { createRedisScheduler } from "../redis/redis-scheduler.ts";
import type { RedisClient } from "../redis/redis-client.ts";
import { redisStoreSettings } from "../redis/redis-settings.ts";
import { openRedisVirtualClock } from "../redis/redis-virtual-clock.ts";
import { REPLICA_ACK_TIMEOUT_MS, replicaAck, withReplicaAck } from "../redis/replica-ack.ts";
import { type JournalSides, openSharedJournal } from "../redis/redis-journal.ts";
import { createMemoryStore, type MemoryStore } from "../store/memory-store.ts";
import { createTimeKeeper, type TimeKeeper } from "../time/time-keeper.ts";
import type { DeliveryStore } from "../webhooks/ports.ts";

export interface BackendSettings {
  /** `memory`, a `redis://` URL, or a `redis+cluster://` list of seed nodes. */
  readonly store: string;
  /** What an acknowledged write survives on Redis (`docs/redis.md`); only `memory` without Redis. */
  readonly durability: RedisDurability;
  /** On Redis, the shards of the shared job queue (the Redis adapters' default when undefined); refused when the queue has another count. */
  readonly jobShards?: number | undefined;
  readonly clock: "real" | "virtual";
  /** Where a virtual clock starts, ms since the epoch; a clock already shared on Redis keeps its time. */
  readonly startAt: number | undefined;
  readonly statusTable: StatusTable;
  /** The state file the options name: only the memory store can be saved to one. */
  readonly stateFile: string | undefined;
  /** This process's journal; on Redis every request is also appended to the shared one. */
  readonly journal: Journal;
  readonly journalLimit: number;
  readonly onError: (error: unknown) => void;
  /** Told of settings that weaken the durability asked for (e.g. `appendfsync everysec`). */
  readonly onWarning: (message: string) => void;
}

/** What a state file keeps: the memory store and the clock with its jobs. */
export interface Persistence {
  readonly store: MemoryStore;
  readonly time: TimeKeeper;
}

export interface Backend {
  readonly store: Store;
  /** This process's clock and its own scheduler. */
  readonly time: TimeKeeper;
  /** The scheduler the domain and the plugins use: on Redis, some job types go to the shared one. */
  readonly scheduler: Scheduler;
  /** Where feature jobs (webhook attempts) run. */
  readonly jobs: JobPlacement;
  /** The delivery log every process shares; undefined where each simulator keeps its own. */
  readonly deliveryStore: DeliveryStore | undefined;
  /** Scenario attempt counts every process shares; undefined where they are the process's own. */
  readonly attemptCounters: SharedAttemptCounters | undefined;
  readonly journal: JournalSides;
  /** What `--state-file` saves; undefined on Redis, which keeps its own state. */
  readonly persistence: Persistence | undefined;
  /** Moves the virtual clock: every process's when it is shared, else this one's. */
  advance(ms: number): Promise<void>;
  /** Starts running shared jobs, once the handlers are registered. */
  start(): void;
  /** Stops the clock and claiming shared jobs; resolves once the jobs running here are done. */
  stop(): Promise<void>;
  /** Closes the connection, after the simulator stopped using it. */
  close(): Promise<void>;
}

/**
 * The store's writes that wait for a replica under `replicated`: those an
 * HTTP answer acknowledges (an order, a token, a balance or a customer
 * changed by the admin API), and a lifecycle step's change of an order. A
 * step is a job whose completion may lie on another master than the order:
 * if the step's change were lost in a failover while its job's completion
 * survived, the order would never go final. Waiting makes the step fail
 * instead, and it is run again after its lease. Seeding at start does not
 * wait: nothing is acknowledged there.
 */
const REPLICATED_WRITES = [
  "placeOrder",
  "patchCustomer",
  "setWalletBalance",
  "putIssuedToken",
  "updateOrderIf",
] as const satisfies readonly (keyof Store)[];

/**
 * The delivery log's writes that wait for a replica under `replicated`. A
 * delivery is written on the customer's slot and on the index across
 * customers (`{deliveries}`), often other masters than the order's: if a
 * failover dropped it after its step completed, the attempt's job would
 * find no delivery and the webhook would never be sent. Waiting makes the
 * step fail instead, and it announces the change again after its lease; an
 * attempt whose outcome no replica holds is made again (the same message
 * id, which receivers deduplicate).
 */
const REPLICATED_DELIVERY_WRITES = ["insert", "update"] as const satisfies readonly (keyof DeliveryStore)[];

/**
 * Refuses to start on a Redis that cannot give the durability asked for,
 * that holds another key layout, or whose job queue counts other shards;
 * warns of what weakens durability.
 */
async function checkRedisOrClose(
  connection: { readonly client: RedisClient; close(): Promise<void> },
  settings: BackendSettings,
  keys: RedisKeys,
): Promise<void> {
  try {
    const check = await checkDurability(connection.client, settings.durability);
    for (const warning of check.warnings) settings.onWarning(`${warning} (loss window: ${check.lossWindow})`);
    // The layout first: it reads a shard count recorded without a layout as layout 1's, and
    // claimShardCount records one on a new database.
    await claimKeyLayout(connection.client, keys.prefix);
    await claimShardCount(connection.client, keys.prefix, keys.shards);
  } catch (error) {
    await connection.close();
    throw error;
  }
}

/** Where the simulator's keys live on Redis: the adapters' default prefix, and the job queue's shards. */
type RedisKeys = ReturnType<typeof redisStoreSettings>;

const LOCAL_JOBS: JobPlacement = { kind: "local", share: () => undefined };

/**
 * @example
 * const backend = await openBackend({ store: "memory", durability: "memory", clock: "virtual", startAt: 0, statusTable,
 *   stateFile: undefined, journal: createJournal(1000), journalLimit: 1000, onError: console.error,
 *   onWarning: console.warn });
 */
export async function openBackend(settings: BackendSettings): Promise<Backend> {
  const { store } = settings;
  if (store === "memory" && settings.durability !== "memory") {
    throw new RangeError(`redisDurability ${settings.durability} needs a Redis store (--store redis://…)`);
  }
  if (store === "memory") return openMemoryBackend(settings);
  if (!isRedisUrl(store)) {
    throw new RangeError(`store must be "memory", a redis:// or a redis+cluster:// URL, got ${JSON.stringify(store)}`);
  }
  if (settings.stateFile !== undefined) {
    throw new RangeError("stateFile keeps the embedded store's state; a Redis store keeps its own");
  }
  return openRedisBackend(store, settings);
}

function onJobError(settings: BackendSettings): (error: unknown, job: Job) => void {
  return (error) => settings.onError(error);
}

function openMemoryBackend(settings: BackendSettings): Backend {
  const store = createMemoryStore({ settled: finalIn(settings.statusTable) });
  const time = createTimeKeeper({
    mode: settings.clock,
    startAt: settings.startAt,
    onError: onJobError(settings),
  });
  const local = settings.journal;
  return {
    store,
    time,
    scheduler: time.scheduler,
    jobs: LOCAL_JOBS,
    deliveryStore: undefined,
    attemptCounters: undefined,
    journal: {
      recorder: local,
      view: { page: async (query) => local.page(query), clear: async (customerId) => local.clear(customerId) },
    },
    persistence: { store, time },
    advance: (ms) => time.advance(ms),
    start: () => undefined,
    stop: async () => time.stop(),
    close: async () => undefined,
  };
}

/**
 * On Redis the lifecycle's steps are shared jobs, so any process finishes any
 * order. With a real clock, feature jobs (webhook attempts) may be shared too:
 * whichever process claims one runs it, from the shared delivery log. With a
 * virtual clock the time itself is in Redis, an advance on any process moves
 * every process's clock, and each process runs its own attempts.
 */
async function openRedisBackend(url: string, settings: BackendSettings): Promise<Backend> {
  const { onError } = settings;
  const keys = redisStoreSettings({ shards: settings.jobShards });
  const connection = await connectRedisStore(url, {
    ...keys,
    onError: (error) => onError(new Error(`Redis: ${error.message}`)),
  });
  const redis = connection.client;
  await checkRedisOrClose(connection, settings, keys);
  // Guarded like the store: a job scheduled with an order while Redis is away answers 503, not 500.
  const shared = guardUnavailable(
    createRedisScheduler(redis, {
      ...keys,
      onError: (error) => onError(error),
    }),
  );
  const ack = settings.durability === "replicated" ? replicaAck(redis, REPLICA_ACK_TIMEOUT_MS) : undefined;
  const deliveries = guardUnavailable(createRedisDeliveryStore(redis));
  const startAt = settings.startAt;
  const clock =
    settings.clock === "virtual"
      ? await openRedisVirtualClock(redis, { ...(startAt === undefined ? {} : { startAt }), onError })
      : undefined;
  const from = clock?.startAt ?? startAt;
  const time = createTimeKeeper({
    mode: settings.clock,
    startAt: from,
    onError: onJobError(settings),
  });
  const sharedTypes = new Set([ORDER_STEP_JOB]);
  clock?.attach(time, shared);
  return {
    store: ack === undefined ? connection.store : withReplicaAck(connection.store, REPLICATED_WRITES, ack),
    time,
    scheduler: createRoutedScheduler(
      time.scheduler,
      ack === undefined ? shared : withReplicaAck(shared, ["schedule"], ack),
      sharedTypes,
    ),
    jobs: clock === undefined ? { kind: "shared", share: (type) => sharedTypes.add(type) } : LOCAL_JOBS,
    deliveryStore: ack === undefined ? deliveries : withReplicaAck(deliveries, REPLICATED_DELIVERY_WRITES, ack),
    attemptCounters: createRedisAttemptCounters(redis),
    journal: openSharedJournal(settings.journal, redis, settings.journalLimit),
    persistence: undefined,
    advance: (ms) => (clock === undefined ? time.advance(ms) : clock.advance(ms)),
    start() {
      // A virtual clock runs the shared jobs in its advances, never on a timer.
      if (clock === undefined) shared.start();
    },
    async stop() {
      time.stop();
      await shared.stop();
      await clock?.close();
    },
    close: () => connection.close(),
  };
}

/**
 * One Scheduler over two: the job types named go to `shared` (on Redis, run
 * by whichever process claims them), every other to `local` (this process's
 * own). The lifecycle's steps and webhook attempts are shared, so a survivor
 * finishes the orders of a process that died and makes its attempts.
 */
export function createRoutedScheduler(
  local: Scheduler,
  shared: Scheduler,
  sharedTypes: ReadonlySet<string>,
): Scheduler {
  const route = (type: string): Scheduler => (sharedTypes.has(type) ? shared : local);
  return {
    handle: (type, handler) => route(type).handle(type, handler),
    schedule: (job) => route(job.type).schedule(job),
    async cancel(jobId) {
      return (await local.cancel(jobId)) || shared.cancel(jobId);
    },
    async size() {
      return (await local.size()) + (await shared.size());
    },
    async nextDueAt(type) {
      if (type !== undefined) return route(type).nextDueAt(type);
      const times = [await local.nextDueAt(), await shared.nextDueAt()].filter((at) => at !== undefined);
      return times.length === 0 ? undefined : Math.min(...times);
    },
    track: (work, horizon) => local.track(work, horizon),
  };
}
