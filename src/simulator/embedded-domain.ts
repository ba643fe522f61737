/**
 * The whole domain wired in one call: on the embedded adapters (memory
 * store, in-process clock and scheduler) unless given others, as
 * `createSimulator` gives those of its backend. `createSimulator`, the bench
 * and the domain tests all start from it, so the domain is wired one way only.
 */
import { randomInt } from "node:crypto";
import { DEFAULT_STATUS_TABLE, FAILED_STATUS, type StatusTable } from "../contract/status-codes.ts";
import { createAirtimeService } from "../domain/airtime-service.ts";
import { type CustomerDirectory, createCustomerDirectory } from "../domain/customers.ts";
import { DEFAULT_KEY_LIFETIME_MS } from "../domain/idempotency.ts";
import { createIds, createSeededRandom, createSequentialIds } from "../domain/ids.ts";
import { DEFAULT_LIFECYCLE, type OutcomeShare } from "../domain/lifecycle.ts";
import { createOrderEventBus, type OrderEventBus } from "../domain/order-events.ts";
import type { Order } from "../domain/model.ts";
import { createOrderRetention, DEFAULT_MAX_ORDERS, finalIn, type OrderRetention } from "../domain/order-retention.ts";
import type { Clock, Ids, Job, Random, Scheduler, Store } from "../domain/ports.ts";
import type { AirtimeService } from "../domain/service-types.ts";
import type { Timing } from "../domain/timing.ts";
import { createMemoryStore } from "../store/memory-store.ts";
import { createTimeKeeper, type TimeKeeper } from "../time/time-keeper.ts";

const CRYPTO_RANGE = 2 ** 32;

/**
 * The unguessable source for secrets (tokens, API keys, issued tokens): the
 * `Random` port on the operating system's CSPRNG, uniform in [0, 1). The
 * domain never reads randomness itself; the wiring hands it this source for
 * secrets and the seeded one for everything a seed must replay (ids, delays,
 * failure coins).
 */
export function createCryptoRandom(): Random {
  return { next: () => randomInt(CRYPTO_RANGE) / CRYPTO_RANGE };
}

export interface EmbeddedDomainOptions {
  /** `virtual` (default): nothing happens until `time.advance(ms)`. `real`: wall-clock timers. */
  readonly clock?: "virtual" | "real";
  /** Start of virtual time, ms since the epoch (default: now). */
  readonly startAt?: number;
  /** Seed of the one random source (ids, delays, failure coins). Default 1. */
  readonly seed?: number;
  /** `random` (default): `ord_` + 20 base32 characters; `sequential`: `ord_1`, `ord_2`, … */
  readonly ids?: "random" | "sequential";
  /** Pending → final delay (default fixed 2 s). */
  readonly timing?: Timing;
  /** Share of orders that fail, 0..1 (default 0). */
  readonly failureRate?: number;
  /** Final status of a failing order (default 2 Failed). */
  readonly failureStatus?: number;
  /** The failed outcomes and their shares; replaces failureRate and failureStatus (default: none). */
  readonly outcomes?: readonly OutcomeShare[] | undefined;
  readonly statusTable?: StatusTable;
  /** Default 24 h. */
  readonly keyLifetimeMs?: number | undefined;
  /** Orders kept in full before the oldest final ones are evicted (default 300,000). */
  readonly maxOrders?: number | undefined;
  /** Told once, when the order cap is first reached (default: console.warn). */
  readonly onFirstEviction?: (message: string) => void;
  /** Another Store adapter (default: a fresh memory store). */
  readonly store?: Store;
  /** The clock and its scheduler, from the backend (default: built here from `clock` and `startAt`). */
  readonly time?: TimeKeeper;
  /** The scheduler jobs go to, e.g. one that sends some types to a shared scheduler (default: `time`'s). */
  readonly scheduler?: Scheduler;
  /** Generated customer secrets: `crypto` (default) or `seeded` from the random source. */
  readonly secrets?: "crypto" | "seeded";
  /** Called when a scheduled job throws (default: console.error). */
  readonly onJobError?: (error: unknown, job: Job) => void;
  /** Called when a status-change listener throws; the change stands (default: console.error). */
  readonly onEventError?: (error: unknown, order: Order) => void;
}

export interface EmbeddedDomain {
  readonly store: Store;
  /** The clock and scheduler together; `time.advance(ms)` in virtual mode. */
  readonly time: TimeKeeper;
  readonly clock: Clock;
  readonly scheduler: Scheduler;
  readonly ids: Ids;
  readonly random: Random;
  readonly statusTable: StatusTable;
  /** Subscribe status-change listeners here (webhooks, probes). */
  readonly events: OrderEventBus;
  readonly service: AirtimeService;
  readonly customers: CustomerDirectory;
  /** The order cap: its figures, and where plugins hold orders back from eviction. */
  readonly retention: OrderRetention;
  /** The pending → final timing orders follow unless a scenario sets theirs. */
  readonly timing: Timing;
}

/**
 * @example
 * const domain = createEmbeddedDomain({ clock: "virtual", startAt: 0, ids: "sequential" });
 * const made = await domain.customers.create({ id: "cus_demo", tokens: ["demo"], wallets: [{ balanceCents: 100_000 }] });
 * const placed = await domain.service.placeOrder({ customerId: "cus_demo",
 *   request: { account: "0712345678", amountCents: 5_000, currency: "KES", reference: "r1" } });
 * await domain.time.advance(2_000); // the order is now 20 Success
 */
export function createEmbeddedDomain(options: EmbeddedDomainOptions = {}): EmbeddedDomain {
  const statusTable = options.statusTable ?? DEFAULT_STATUS_TABLE;
  const store = options.store ?? createMemoryStore({ settled: finalIn(statusTable) });
  const time =
    options.time ??
    createTimeKeeper({
      mode: options.clock ?? "virtual",
      startAt: options.startAt,
      onError: options.onJobError,
    });
  const scheduler = options.scheduler ?? time.scheduler;
  const random = createSeededRandom(options.seed ?? 1);
  const ids = options.ids === "sequential" ? createSequentialIds() : createIds(random);
  const events = createOrderEventBus();
  const keyLifetimeMs = options.keyLifetimeMs ?? DEFAULT_KEY_LIFETIME_MS;
  const retention = createOrderRetention({
    store,
    clock: time.clock,
    statusTable,
    maxOrders: options.maxOrders ?? DEFAULT_MAX_ORDERS,
    keyLifetimeMs,
    onFirstEviction: options.onFirstEviction ?? ((message) => console.warn(`airtime simulator: ${message}`)),
  });
  const timing = options.timing ?? DEFAULT_LIFECYCLE.timing;
  const service = createAirtimeService({
    store,
    clock: time.clock,
    scheduler,
    ids,
    random,
    events: events.events,
    statusTable,
    lifecycle: {
      timing,
      failureRate: options.failureRate ?? DEFAULT_LIFECYCLE.failureRate,
      failureStatus: options.failureStatus ?? FAILED_STATUS,
      outcomes: options.outcomes,
    },
    keyLifetimeMs,
    retention,
    onEventError: options.onEventError,
  });
  const customers = createCustomerDirectory({
    store,
    ids,
    clock: time.clock,
    secrets: options.secrets === "seeded" ? random : createCryptoRandom(),
  });
  return {
    store,
    time,
    clock: time.clock,
    scheduler,
    ids,
    random,
    statusTable,
    events,
    service,
    customers,
    retention,
    timing,
  };
}
