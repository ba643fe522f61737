/**
 * The ports the domain needs. `Store` and `Scheduler` are async even where
 * the memory adapter is synchronous: they are shaped for the slowest backend
 * (Redis), so callers never change when the adapter does.
 *
 * `Clock.now()`, `Ids.next()` and `Random.next()` are deliberately
 * synchronous: reading the time and drawing ids or random numbers stay local
 * to the process even with a Redis store (a virtual clock shared on Redis is
 * read from the process's copy, which follows the shared time, and ids need
 * no coordination), so making them async would only add an `await` to every
 * hot path.
 */
import type {
  Customer,
  EvictedOrder,
  EvictionCandidate,
  IdempotencyRecord,
  IssuedToken,
  Order,
  Wallet,
  WebhookEndpoint,
} from "./model.ts";

/** Milliseconds since the epoch on the simulator clock (real or virtual). Synchronous: the process's own copy. */
export interface Clock {
  now(): number;
  /**
   * True when time moves only when told to (a virtual clock). Work in flight,
   * such as an HTTP request, then takes no simulator time: a test that
   * advances by a schedule's delays sees each step at exactly its time.
   */
  readonly virtual?: boolean;
}

/**
 * A scheduled job is plain data (type + JSON payload) so a persistent
 * scheduler can keep it across restarts; handlers are registered by type.
 */
export interface Job {
  readonly id: string;
  readonly type: string;
  readonly dueAt: number;
  readonly payload: unknown;
}

export type JobHandler = (job: Job) => Promise<void>;

export interface Scheduler {
  /** Registers the handler for one job type (one handler per type). */
  handle(type: string, handler: JobHandler): void;
  /**
   * Schedules a job; returns its id. A job due in the past runs at the next
   * opportunity. Under the id of a job not yet done it replaces that job,
   * or, with `ifAbsent`, leaves it as it is (a shared scheduler counts a job
   * still running as not done).
   */
  schedule(job: { type: string; dueAt: number; payload: unknown; id?: string; ifAbsent?: boolean }): Promise<string>;
  cancel(jobId: string): Promise<boolean>;
  /** Number of jobs not yet run. */
  size(): Promise<number>;
  /**
   * When the earliest job not yet run is due, undefined when none waits.
   * With `type`, the earliest of that type (the dashboard's next order step,
   * which may be a final order's reversal); without, of any type, and a
   * shared scheduler counts a leased job's lease end too (when another
   * process may claim it).
   */
  nextDueAt(type?: string): Promise<number | undefined>;
  /**
   * Work a job's handler started and did not await (an HTTP request), with
   * the earliest simulator time at which it may schedule a job. A virtual
   * clock does not move past `horizon` before the work has finished, so what
   * the work schedules still runs in time order, in the same advance; work
   * that can schedule nothing (`Infinity`) holds nothing up. A real clock
   * ignores it.
   */
  track(work: Promise<unknown>, horizon: number): void;
}

/**
 * Where a feature's background jobs run. `local`: on this process's own
 * scheduler. `shared`: on a scheduler every process claims leased jobs from
 * (a Redis store with a real clock), so a survivor runs the jobs of a process
 * that died. The backend decides; a feature only asks.
 */
export interface JobPlacement {
  readonly kind: "local" | "shared";
  /** Sends jobs of `type` to the shared scheduler when there is one (call before scheduling any). */
  share(type: string): void;
}

/** Id generation, injected so runs are reproducible. Synchronous: local to the process. */
export interface Ids {
  /** A new unique id with the given prefix, e.g. `ord_…`, `whmsg_…`. */
  next(prefix: string): string;
}

/**
 * A source of uniform numbers in [0, 1): seeded for reproducible runs, or
 * `node:crypto` where the numbers become secrets (customer tokens, API keys).
 */
export interface Random {
  next(): number;
}

export type DebitResult =
  | { readonly kind: "debited"; readonly wallet: Wallet }
  | { readonly kind: "insufficient"; readonly wallet: Wallet }
  | { readonly kind: "unknown_wallet" };

/** What `Store.placeOrder` did. */
export type PlaceResult =
  | { readonly kind: "placed" }
  | { readonly kind: "existing"; readonly record: IdempotencyRecord }
  | { readonly kind: "duplicate_reference" }
  | { readonly kind: "insufficient"; readonly wallet: Wallet }
  | { readonly kind: "unknown_wallet" };

/**
 * Storage of customers, wallets, orders and idempotency records. Every method
 * that must be atomic says so: the domain relies on it instead of locks.
 */
export interface Store {
  putCustomer(customer: Customer): Promise<void>;
  getCustomer(id: string): Promise<Customer | undefined>;
  listCustomers(): Promise<Customer[]>;
  /** The customer owning a static token, compared in constant time by the adapter. */
  findCustomerByToken(token: string): Promise<Customer | undefined>;

  /** The order with this id; `customerId`, when known, lets a shared store look in that customer's orders first. */
  getOrder(id: string, customerId?: string): Promise<Order | undefined>;
  getOrderByReference(customerId: string, reference: string): Promise<Order | undefined>;
  listOrders(filter?: { customerId?: string }): Promise<Order[]>;
  /**
   * One page of orders, oldest first, matching every filter given. The
   * adapter bounds the work of one call: a page may hold fewer than `limit`
   * orders (even none) while `nextCursor` is not null, so callers follow the
   * cursor until it is null.
   */
  listOrderPage(query: OrderPageQuery): Promise<OrderPage>;
  /** Eviction candidates, oldest first: `listOrderPage`'s pages without filters, of what the scan reads. */
  listEvictionCandidates(query: CandidatePageQuery): Promise<CandidatePage>;
  /** Orders kept in full (evicted ones not counted). */
  countOrders(): Promise<number>;
  /**
   * Orders kept in full by current status (a metrics scrape asks this). The
   * memory store keeps the counts as orders change; the Redis store reads
   * every order.
   */
  countOrdersByStatus(): Promise<ReadonlyMap<number, number>>;
  /**
   * Atomic: removes an order whose history still has `expectedVersion`
   * entries. Until `keepUntil` (if later than `now`) it leaves an
   * `EvictedOrder` that keeps its reference taken; after that the reference
   * is free again. False when the order changed or is gone. `known` is the
   * order as the caller read it at that version, which an adapter may use
   * instead of reading it again.
   */
  evictOrder(
    id: string,
    expectedVersion: number,
    keepUntil: number,
    now: number,
    known?: EvictionCandidate,
  ): Promise<boolean>;
  /** The record an evicted order left, while it is kept. */
  getEvictedOrder(id: string, now: number): Promise<EvictedOrder | undefined>;
  getEvictedOrderByReference(customerId: string, reference: string, now: number): Promise<EvictedOrder | undefined>;
  /** Evicted-order records still kept at `now`. */
  countEvictedOrders(now: number): Promise<number>;

  /**
   * Atomic: the whole placement as one step — the idempotency key (a live
   * record is returned as `existing`, nothing changed), the reference, the
   * balance, the debit of `order.amountCents`, the order, and the key's
   * record (already bound to the order). A process killed mid-way leaves all
   * of it or none: never a debit without its order, or a key without it.
   */
  placeOrder(placement: {
    readonly order: Order;
    readonly key?: IdempotencyRecord;
    readonly now: number;
  }): Promise<PlaceResult>;

  /** Removes everything of one customer (orders, keys) or, without an id, everything. */
  reset(customerId?: string): Promise<void>;

  /**
   * Atomic compare-and-set: stores `order` only when the stored order's
   * history still has `expectedVersion` entries (every status change appends
   * exactly one). False when another change won the race or the order is gone.
   * With `refund`, the same atomic step credits `order.amountCents` back to
   * the order's funding wallet (a wallet gone meanwhile is left alone): a
   * process killed right after the change cannot leave it unrefunded.
   */
  updateOrderIf(order: Order, expectedVersion: number, refund?: boolean): Promise<boolean>;
  /**
   * Atomic: changes a customer's own fields, never its wallets (so it cannot
   * overwrite a concurrent debit). `webhook: null` removes the endpoint.
   * Undefined when the customer does not exist.
   */
  patchCustomer(id: string, patch: CustomerPatch): Promise<Customer | undefined>;
  /** Atomic: sets a wallet's balance, adding the wallet when absent. Undefined for an unknown customer. */
  setWalletBalance(
    customerId: string,
    shortcode: string | null,
    cents: number,
    currency?: string,
  ): Promise<Wallet | undefined>;
  /**
   * Keeps a token issued by `POST /v1/auth/token` (the adapter stores only
   * its hash). Tokens expired by `token.issuedAt` are swept, amortised.
   */
  putIssuedToken(token: IssuedToken): Promise<void>;
  /** Issued tokens held, expired ones not yet swept included. */
  countIssuedTokens(): Promise<number>;
  /** The customer owning an issued token not yet expired at `now`, compared in constant time. */
  findCustomerByIssuedToken(token: string, now: number): Promise<Customer | undefined>;
}

/**
 * The store cannot be reached (Redis down or restarting). Requests that meet
 * it answer 503 `store_unavailable`; nothing already stored is lost.
 */
export class StoreUnavailableError extends Error {
  override readonly name = "StoreUnavailableError";
}

/**
 * With `--redis-durability replicated`, no replica acknowledged a write in
 * time. The write stays on the master, so a retry with the same idempotency
 * key finds it rather than placing it again; it answers 503
 * `store_not_replicated` until a replica holds it.
 */
export class StoreNotReplicatedError extends Error {
  override readonly name = "StoreNotReplicatedError";
}

/** Filters of `Store.listOrderPage`; each one given must match. */
export interface OrderPageQuery {
  readonly customerId?: string;
  readonly status?: number;
  readonly reference?: string;
  readonly referencePrefix?: string;
  /** Created at or after, simulator-clock ms. */
  readonly from?: number;
  /** Created at or before, simulator-clock ms. */
  readonly to?: number;
  /** Newest first instead of oldest first; a cursor goes on in the direction of the page that gave it. */
  readonly newestFirst?: boolean;
  readonly limit: number;
  /** Opaque: a `nextCursor` from the previous page. */
  readonly cursor?: string;
}

export interface OrderPage {
  readonly orders: readonly Order[];
  /** Where the next page starts; null when there is no more. */
  readonly nextCursor: string | null;
}

export interface CandidatePageQuery {
  readonly limit: number;
  /** Opaque: a `nextCursor` from the previous page. */
  readonly cursor?: string;
}

export interface CandidatePage {
  readonly candidates: readonly EvictionCandidate[];
  /** Where the next page starts; null when there is no more. */
  readonly nextCursor: string | null;
}

/** The fields `Store.patchCustomer` may change; absent fields stay as they are. */
export interface CustomerPatch {
  readonly name?: string;
  readonly tokens?: readonly string[];
  readonly apiKey?: string;
  readonly webhook?: WebhookEndpoint | null;
}
