/**
 * The whole domain wired in one call: on the embedded adapters (memory
 * store, in-process clock and scheduler) unless given others, as
 * `createSimulator` gives those of its backend. `createSimulator`, the bench
 * and the domain tests all start from it, so the domain is wired one way only.
 */
import { randomInt } from "node:crypto";
import type { StatusTable } from "../contract/status-codes.ts";
import { createAirtimeService } from "../domain/airtime-service.ts";
import { type CustomerDirectory, createCustomerDirectory } from "../domain/customers.ts";
import { createIds, createSeededRandom, createSequentialIds } from "../domain/ids.ts";
import { createOrderEventBus, type OrderEventBus } from "../domain/order-events.ts";
import { createOrderRetention, type OrderRetention } from "../domain/order-retention.ts";
import type { Clock, Ids, Random, Scheduler, Store } from "../domain/ports.ts";
import type { AirtimeService } from "../domain/service-types.ts";
import type { Timing } from "../domain/timing.ts";
import type { TimeKeeper } from "../time/time-keeper.ts";
import { type EmbeddedDomainOptions, embeddedDomainSettings } from "./simulator-settings.ts";

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
  const settings = embeddedDomainSettings(options);
  const { statusTable, store, time, scheduler, keyLifetimeMs, lifecycle } = settings;
  const random = createSeededRandom(settings.seed);
  const ids = settings.ids === "sequential" ? createSequentialIds() : createIds(random);
  const events = createOrderEventBus();
  const retention = createOrderRetention({
    store,
    clock: time.clock,
    statusTable,
    maxOrders: settings.maxOrders,
    keyLifetimeMs,
    onFirstEviction: settings.onFirstEviction,
  });
  const service = createAirtimeService({
    store,
    clock: time.clock,
    scheduler,
    ids,
    random,
    events: events.events,
    statusTable,
    lifecycle,
    keyLifetimeMs,
    retention,
    onEventError: settings.onEventError,
  });
  const customers = createCustomerDirectory({
    store,
    ids,
    clock: time.clock,
    secrets: settings.secrets === "seeded" ? random : createCryptoRandom(),
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
    timing: lifecycle.timing,
  };
}
