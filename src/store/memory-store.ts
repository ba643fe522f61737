/**
 * The embedded Store: plain maps in this process. Every method the port calls
 * atomic runs its check and its write in one synchronous stretch (no await in
 * between), which is what makes it atomic on Node's single thread.
 *
 * Records are copied in and frozen, so nothing a caller holds — neither the
 * object it passed in nor one it got back — can change stored state. Reads
 * hand out the frozen record itself (no copy on the hot path); lists are new
 * arrays. Nothing is copied that cannot change anyway: a record frozen all
 * the way down is kept as it is, and a record written as a change of the
 * stored one shares every part it did not change with the stored version.
 *
 * Two books keep the state, both in this file: the {@link CustomerBook}
 * (customers, wallets, tokens) and the {@link OrderBook} — orders, their
 * references, the records evicted orders leave, and idempotency keys, whose
 * maps change together: a reference points at an order or at an evicted
 * order's record, a key at an order, and the creation index's slots at the
 * orders. The order book debits and refunds through the customer book, and
 * both sweep what expired by one rule.
 *
 * What is kept for a key lifetime (a day by default, so millions of entries
 * under load) — keys, references, evicted orders' records — lives in
 * `ByteMap`s, off V8's heap, as short JSON strings with the expiry first,
 * so a sweep reads it without parsing the rest; the record a reader gets is
 * made when read.
 */
import * as nodeCrypto from "node:crypto";
import { constantTimeEqual } from "../contract/signing.ts";
import type {
  Customer,
  EvictedOrder,
  EvictionCandidate,
  IdempotencyRecord,
  IssuedToken,
  Order,
  Wallet,
} from "../domain/model.ts";
import type {
  CandidatePage,
  CandidatePageQuery,
  CustomerPatch,
  DebitResult,
  OrderPage,
  OrderPageQuery,
  PlaceResult,
  Store,
} from "../domain/ports.ts";
import { byCreation } from "../domain/order-page.ts";
import { evictedRecordOf } from "../domain/order-retention.ts";
import { ByteMap } from "./byte-map.ts";
import { type ColdQueue, type ColdQueueOptions, createColdQueue, DEFAULT_HOT_RECORDS } from "./cold-queue.ts";
import { type CreationIndex, createCreationIndex } from "./creation-index.ts";
import { freezeCopy } from "./freeze-copy.ts";
import { candidateOfStored, orderOf, PackedOrder, type StoredOrder, versionOf } from "./packed-order.ts";

/**
 * The memory store's settings, normalised once: its defaults in one table,
 * and one frozen settings object the store reads as it is. How many settled
 * orders stay unpacked, and whether packing runs in the background, are the
 * cold queue's defaults (`cold-queue.ts`), which it shares with the delivery
 * store.
 */

export interface MemoryStoreOptions {
  /**
   * Whether an order is settled (final): a settled order beyond the
   * `hotOrders` most recently settled is kept packed (see record-packer.ts).
   * Without it nothing is packed.
   */
  readonly settled?: (order: Order) => boolean;
  /** Settled orders kept as objects; default {@link DEFAULT_HOT_RECORDS}. */
  readonly hotOrders?: number;
  /** False: pack inside the write that settles an order, not in the background (tests). */
  readonly packInBackground?: boolean;
}

const MEMORY_STORE_DEFAULTS = Object.freeze({
  settled: (_order: Order): boolean => false,
  hotOrders: DEFAULT_HOT_RECORDS,
});

/**
 * @example
 * memoryStoreSettings({ packInBackground: false }).packing; // { hot: 1000, background: false }
 */
export function memoryStoreSettings(options: MemoryStoreOptions) {
  const packing: ColdQueueOptions = {
    hot: options.hotOrders ?? MEMORY_STORE_DEFAULTS.hotOrders,
    ...(options.packInBackground === undefined ? {} : { background: options.packInBackground }),
  };
  return Object.freeze({
    settled: options.settled ?? MEMORY_STORE_DEFAULTS.settled,
    packing: Object.freeze(packing),
  });
}

/*
 * When the memory store sweeps what expired (idempotency keys, issued
 * tokens, evicted-order records): each table keeps its own mark, and one
 * rule decides for all three, so they are swept alike.
 *
 * A sweep walks its map from the front, and a Map keeps the slots of
 * deleted entries until it rehashes: swept on every call, each sweep would
 * step over tens of thousands of dead slots (about 40 µs per order at 600
 * orders/s). So sweeps run at most once per {@link SWEEP_EVERY_MS} of
 * simulator time; every read checks expiry itself, so a record not yet
 * swept is never answered.
 */

/** How often, in simulator time, expired keys, tokens and evicted-order records are swept. */
const SWEEP_EVERY_MS = 1_000;

/** A table swept from the front: when it was last swept, in simulator time. */
interface Swept {
  sweptAt: number;
}

/** What a sweep needs of its table: a `Map`, or a `ByteMap`. */
interface FrontSweepable<K, V> {
  entries(): Iterable<[K, V]>;
  delete(key: K): boolean;
}

/**
 * Deletes `map`'s entries from the front while they have expired at `now`,
 * stopping at the first live one: each table inserts in expiry order.
 * `dropped` hears of each entry deleted.
 */
function dropExpiredFront<K, V>(
  map: FrontSweepable<K, V>,
  now: number,
  expiresAt: (value: V) => number,
  dropped?: (key: K, value: V) => void,
): void {
  for (const [key, value] of map.entries()) {
    if (expiresAt(value) > now) return;
    map.delete(key);
    dropped?.(key, value);
  }
}

/** Whether `table` is due a sweep at `now`; when it is, marks it swept. */
function sweepDue(table: Swept, now: number): boolean {
  if (now - table.sweptAt < SWEEP_EVERY_MS) return false;
  table.sweptAt = now;
  return true;
}

/*
 * The memory store's customers and wallets, with the two token indexes that
 * lead to them (static tokens and issued ones): one component, the
 * {@link CustomerBook}, whose maps change together (a customer's tokens are
 * indexed when it is put, and re-indexed when it is patched). The order
 * book in `memory-store.ts` debits and refunds through it.
 */

interface TokenEntry {
  readonly digest: Buffer;
  readonly customerId: string;
}

interface IssuedEntry extends TokenEntry {
  readonly expiresAt: number;
}

/** An issued token as `--state-file` saves it: the digest the store holds, never the token itself. */
export interface SavedIssuedToken {
  readonly digest: string;
  readonly customerId: string;
  readonly expiresAt: number;
}

const { createHash } = nodeCrypto;

/** SHA-256 in one call where Node has `crypto.hash` (20.12+): half the cost of a Hash object per request. */
const digestOf: (token: string) => Buffer =
  typeof nodeCrypto.hash === "function"
    ? (token) => nodeCrypto.hash("sha256", token, "buffer")
    : (token) => createHash("sha256").update(token, "utf8").digest();

/**
 * Tokens are found by the SHA-256 digest of what the caller sent: the map
 * lookup then depends only on a digest an attacker cannot steer byte by
 * byte, and the final check compares digests in constant time.
 */
function matchToken<E extends TokenEntry>(index: ReadonlyMap<string, E>, token: string): E | undefined {
  const digest = digestOf(token);
  const entry = index.get(digest.toString("hex"));
  if (entry === undefined || !constantTimeEqual(entry.digest, digest)) return undefined;
  return entry;
}

/** The customer with other wallets, frozen; built field by field, as a spread of a frozen record is slow. */
function withWallets(customer: Customer, wallets: readonly Wallet[]): Customer {
  const updated: { -readonly [K in keyof Customer]: Customer[K] } = {
    id: customer.id,
    name: customer.name,
    tokens: customer.tokens,
    apiKey: customer.apiKey,
    wallets,
  };
  if (customer.webhook !== undefined) updated.webhook = customer.webhook;
  return Object.freeze(updated);
}

function assertCents(cents: number): void {
  if (!Number.isSafeInteger(cents) || cents < 0)
    throw new RangeError(`cents must be a safe integer >= 0, got ${cents}`);
}

const expiresAtOf = (entry: IssuedEntry): number => entry.expiresAt;

/**
 * The customers a memory store holds, their wallets and the token indexes.
 * Every method runs in one synchronous stretch, which is what makes the
 * store's operations atomic.
 */
class CustomerBook implements Swept {
  readonly customers = new Map<string, Customer>();
  /** Static tokens: digest (hex) → customer. */
  private readonly tokens = new Map<string, TokenEntry>();
  /** Issued tokens: digest (hex) → customer and expiry; insertion order is expiry order. */
  private readonly issued = new Map<string, IssuedEntry>();
  /** When the issued tokens were last swept. */
  sweptAt = -Infinity;

  get issuedCount(): number {
    return this.issued.size;
  }

  private indexTokens(customer: Customer): void {
    for (const token of customer.tokens) {
      const digest = digestOf(token);
      this.tokens.set(digest.toString("hex"), { digest, customerId: customer.id });
    }
  }

  private unindexTokens(customer: Customer): void {
    for (const token of customer.tokens) {
      const hex = digestOf(token).toString("hex");
      if (this.tokens.get(hex)?.customerId === customer.id) this.tokens.delete(hex);
    }
  }

  /** Keeps a frozen copy of `customer` (replacing the one with its id) and indexes its tokens. */
  put(customer: Customer): void {
    const previous = this.customers.get(customer.id);
    if (previous !== undefined) this.unindexTokens(previous);
    const stored = freezeCopy(customer);
    this.customers.set(stored.id, stored);
    this.indexTokens(stored);
  }

  findByToken(token: string): Customer | undefined {
    const entry = matchToken(this.tokens, token);
    return entry === undefined ? undefined : this.customers.get(entry.customerId);
  }

  /** Changes a customer's own fields, never its wallets; undefined for an unknown customer. */
  patch(id: string, patch: CustomerPatch): Customer | undefined {
    const customer = this.customers.get(id);
    if (customer === undefined) return undefined;
    const copy = freezeCopy(patch);
    const { webhook: previousWebhook, ...rest } = customer;
    const webhook = copy.webhook === undefined ? previousWebhook : (copy.webhook ?? undefined);
    const updated: Customer = {
      ...rest,
      name: copy.name ?? customer.name,
      tokens: copy.tokens ?? customer.tokens,
      apiKey: copy.apiKey ?? customer.apiKey,
      ...(webhook === undefined ? {} : { webhook }),
    };
    this.unindexTokens(customer);
    const stored = Object.freeze(updated);
    this.customers.set(id, stored);
    this.indexTokens(stored);
    return stored;
  }

  /**
   * Replaces one wallet of a stored customer with a new balance (and
   * currency); the caller has checked it exists. Built field by field: this
   * runs for every order, and a spread of a frozen record takes V8's slow
   * cloning path.
   */
  private replaceWallet(customer: Customer, index: number, balanceCents: number, currency: string): Wallet {
    const wallet = customer.wallets[index] as Wallet;
    const frozenWallet: Wallet = Object.freeze({ shortcode: wallet.shortcode, balanceCents, currency });
    const wallets = customer.wallets.slice();
    wallets[index] = frozenWallet;
    this.customers.set(customer.id, withWallets(customer, Object.freeze(wallets)));
    return frozenWallet;
  }

  /** Sets a wallet's balance, adding the wallet when absent; undefined for an unknown customer. */
  setWalletBalance(
    customerId: string,
    shortcode: string | null,
    cents: number,
    currency: string | undefined,
  ): Wallet | undefined {
    assertCents(cents);
    const customer = this.customers.get(customerId);
    if (customer === undefined) return undefined;
    const index = customer.wallets.findIndex((wallet) => wallet.shortcode === shortcode);
    const existing = customer.wallets[index];
    if (existing !== undefined) return this.replaceWallet(customer, index, cents, currency ?? existing.currency);
    const wallet = Object.freeze({ shortcode, balanceCents: cents, currency: currency ?? "KES" });
    this.customers.set(customer.id, withWallets(customer, Object.freeze([...customer.wallets, wallet])));
    return wallet;
  }

  /** Subtracts (`sign` -1, refusing an overdraft) or adds (`sign` 1) `cents`. */
  changeBalance(customerId: string, shortcode: string | null, cents: number, sign: 1 | -1): DebitResult {
    assertCents(cents);
    const customer = this.customers.get(customerId);
    const index = customer?.wallets.findIndex((wallet) => wallet.shortcode === shortcode) ?? -1;
    const wallet = customer?.wallets[index];
    if (customer === undefined || wallet === undefined) return { kind: "unknown_wallet" };
    if (sign < 0 && wallet.balanceCents < cents) return { kind: "insufficient", wallet };
    const balance = wallet.balanceCents + sign * cents;
    return { kind: "debited", wallet: this.replaceWallet(customer, index, balance, wallet.currency) };
  }

  putIssuedToken(token: IssuedToken): void {
    // With one token lifetime, insertion order is expiry order: expired tokens are dropped from the front.
    if (sweepDue(this, token.issuedAt)) dropExpiredFront(this.issued, token.issuedAt, expiresAtOf);
    const digest = digestOf(token.token);
    this.issued.set(digest.toString("hex"), { digest, customerId: token.customerId, expiresAt: token.expiresAt });
  }

  findByIssuedToken(token: string, now: number): Customer | undefined {
    const entry = matchToken(this.issued, token);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= now) {
      this.issued.delete(entry.digest.toString("hex"));
      return undefined;
    }
    return this.customers.get(entry.customerId);
  }

  /** Forgets the tokens issued to one customer; the customer and its static tokens stay. */
  forgetIssuedTokens(customerId: string): void {
    for (const [hex, entry] of this.issued) if (entry.customerId === customerId) this.issued.delete(hex);
  }

  clear(): void {
    this.customers.clear();
    this.tokens.clear();
    this.issued.clear();
  }

  savedIssuedTokens(): SavedIssuedToken[] {
    return [...this.issued.values()].map((entry) => ({
      digest: entry.digest.toString("hex"),
      customerId: entry.customerId,
      expiresAt: entry.expiresAt,
    }));
  }

  /** Loads saved customers and issued tokens into the emptied book. */
  load(customers: readonly Customer[], issuedTokens: readonly SavedIssuedToken[]): void {
    for (const customer of customers) {
      const stored = freezeCopy(customer);
      this.customers.set(stored.id, stored);
      this.indexTokens(stored);
    }
    for (const entry of issuedTokens) {
      this.issued.set(entry.digest, { ...entry, digest: Buffer.from(entry.digest, "hex") });
    }
  }
}

/**
 * Everything a memory store holds, as plain data: what `--state-file` saves
 * at shutdown and loads at start. Issued tokens are kept as the digests the
 * store holds (never the tokens themselves).
 */
export interface MemoryStoreState {
  readonly customers: readonly Customer[];
  /** In creation order. */
  readonly orders: readonly Order[];
  /** In expiry order. */
  readonly idempotencyKeys: readonly IdempotencyRecord[];
  /** In eviction order. */
  readonly evictedOrders: readonly EvictedOrder[];
  readonly issuedTokens: readonly SavedIssuedToken[];
}

/** The memory store, with its whole state to save and load. */
export interface MemoryStore extends Store {
  exportState(): MemoryStoreState;
  /** Replaces everything held with `state`. */
  importState(state: MemoryStoreState): void;
}

/** The map key of a customer's idempotency key, or of a customer's reference. */
function keyOf(customerId: string, key: string): string {
  return `${customerId}\u0000${key}`;
}

/** An idempotency key's expiry, fingerprint and order (absent while the first request is in flight). */
type KeptKey = string;
type KeyFields = [expiresAt: number, fingerprint: string, orderId?: string];

function keptKey({ expiresAt, fingerprint, orderId }: IdempotencyRecord): KeptKey {
  const fields: KeyFields = orderId === undefined ? [expiresAt, fingerprint] : [expiresAt, fingerprint, orderId];
  return JSON.stringify(fields);
}

/** The expiry of a kept key or of a kept evicted order's record: both put it first. */
function expiryOf(kept: string): number {
  return Number(kept.slice(1, kept.indexOf(",")));
}

/** The record under its map key (customer ids hold no NUL, so the first one splits it). */
function recordOf(composite: string, kept: KeptKey): IdempotencyRecord {
  const split = composite.indexOf("\u0000");
  const [expiresAt, fingerprint, orderId] = JSON.parse(kept) as KeyFields;
  return Object.freeze({
    customerId: composite.slice(0, split),
    key: composite.slice(split + 1),
    fingerprint,
    ...(orderId === undefined ? {} : { orderId }),
    expiresAt,
  });
}

/** An evicted order's record under its id: `[keptUntil, status, createdAt, updatedAt, customerId, reference, message]`. */
type KeptEvicted = string;
type EvictedFields = [
  keptUntil: number,
  status: number,
  createdAt: number,
  updatedAt: number,
  customerId: string,
  reference: string,
  message: string,
];

function evictedEntry(record: EvictedOrder): KeptEvicted {
  const { keptUntil, status, createdAt, updatedAt, customerId, reference, message } = record;
  const fields: EvictedFields = [keptUntil, status, createdAt, updatedAt, customerId, reference, message];
  return JSON.stringify(fields);
}

function evictedOf(id: string, kept: KeptEvicted): EvictedOrder {
  const [keptUntil, status, createdAt, updatedAt, customerId, reference, message] = JSON.parse(kept) as EvictedFields;
  return Object.freeze({ id, customerId, reference, status, message, createdAt, updatedAt, keptUntil });
}

/** The orders a memory store holds, with their references, evicted orders' records and idempotency keys. */
class OrderBook {
  readonly orders = new Map<string, StoredOrder>();
  /** `customerId\0reference` → the id of the order, or of the evicted order still kept, holding it. */
  private readonly references = new ByteMap();
  /** id → what an evicted order left, as `KeptEvicted`; insertion (eviction) order is about expiry order too. */
  readonly evicted = new ByteMap();
  /** `customerId\0key` → `KeptKey`; insertion order is expiry order while the key lifetime is constant. */
  private readonly keys = new ByteMap();
  private readonly index: CreationIndex<StoredOrder>;
  /** Orders kept by current status, kept in step with `orders`: a metrics scrape asks without reading them. */
  private readonly byStatus = new Map<number, number>();
  private readonly cold: ColdQueue;
  private readonly keysSwept: Swept = { sweptAt: -Infinity };
  private readonly evictedSwept: Swept = { sweptAt: -Infinity };

  /** Whether an order is settled (final), so packed once it is no longer hot. */
  private readonly settled: (order: Order) => boolean;

  constructor(settings: ReturnType<typeof memoryStoreSettings>) {
    const { settled } = settings;
    this.settled = settled;
    this.cold = createColdQueue(settings.packing, (id) => {
      const stored = this.orders.get(id);
      if (stored !== undefined && !(stored instanceof PackedOrder) && settled(stored)) {
        this.orders.set(id, new PackedOrder(stored));
      }
    });
    this.index = createCreationIndex<StoredOrder>((id) => this.orders.get(id));
  }

  /** Keeps a new version of an order (of `previous`, when there was one), and queues it for packing once it is settled. */
  private keep(order: Order, previous?: StoredOrder): void {
    this.orders.set(order.id, order);
    if (previous !== undefined) this.counted(previous.status, -1);
    this.counted(order.status, 1);
    if (this.settled(order)) this.cold.settled(order.id);
  }

  private counted(status: number, change: number): void {
    const count = (this.byStatus.get(status) ?? 0) + change;
    if (count === 0) this.byStatus.delete(status);
    else this.byStatus.set(status, count);
  }

  read(id: string | undefined): Order | undefined {
    const stored = id === undefined ? undefined : this.orders.get(id);
    return stored === undefined ? undefined : orderOf(stored);
  }

  /** The id of the order (or evicted order) holding a customer's reference. */
  idByReference(customerId: string, reference: string): string | undefined {
    return this.references.get(keyOf(customerId, reference));
  }

  private takeReference(customerId: string, reference: string, id: string): void {
    this.references.set(keyOf(customerId, reference), id);
  }

  /** Forgets an evicted order's reference, unless a newer order has taken it since. */
  private freeReference(customerId: string, reference: string, id: string): void {
    const composite = keyOf(customerId, reference);
    if (this.references.get(composite) === id) this.references.delete(composite);
  }

  /** The live record under a key's composite, if any; sweeps expired keys first (at most once a second). */
  liveKey(composite: string, now: number): IdempotencyRecord | undefined {
    if (sweepDue(this.keysSwept, now)) dropExpiredFront(this.keys, now, expiryOf);
    const previous = this.keys.get(composite);
    return previous !== undefined && expiryOf(previous) > now ? recordOf(composite, previous) : undefined;
  }

  /** Binds `key` under `composite`; a key bound again after it expired moves to the back (keeps expiry order). */
  bindKey(composite: string, key: IdempotencyRecord): void {
    this.keys.set(composite, keptKey(key));
  }

  /** Keeps an order whose reference the caller has found free. */
  add(order: Order): void {
    const stored = freezeCopy(order);
    this.takeReference(stored.customerId, stored.reference, stored.id);
    this.keep(stored);
    this.index.add(stored);
  }

  /** Stores `order` when the stored one still has `expectedVersion` history entries. */
  replaceIf(order: Order, expectedVersion: number): boolean {
    const current = this.orders.get(order.id);
    if (current === undefined || versionOf(current) !== expectedVersion) return false;
    this.keep(freezeCopy(order, current), current);
    return true;
  }

  keptEvicted(id: string | undefined, now: number): EvictedOrder | undefined {
    const kept = id === undefined ? undefined : this.evicted.get(id);
    return id !== undefined && kept !== undefined && expiryOf(kept) > now ? evictedOf(id, kept) : undefined;
  }

  /** Drops evicted-order records whose retention ended, from the front (all of them when `force`d). */
  sweepEvicted(now: number, force = false): void {
    if (!sweepDue(this.evictedSwept, now) && !force) return;
    dropExpiredFront(this.evicted, now, expiryOf, (id, kept) => {
      const record = evictedOf(id, kept);
      this.freeReference(record.customerId, record.reference, id);
    });
  }

  /** Whether an order, or an evicted order still kept, holds the reference; frees it from one whose time is up. */
  referenceTaken(customerId: string, reference: string, now: number): boolean {
    const id = this.idByReference(customerId, reference);
    if (id === undefined) return false;
    if (this.orders.has(id)) return true;
    const kept = this.evicted.get(id);
    if (kept !== undefined && expiryOf(kept) > now) return true;
    this.evicted.delete(id);
    this.freeReference(customerId, reference, id);
    return false;
  }

  /** Removes an order of `expectedVersion`, keeping its record until `keepUntil`; false when it changed or went. */
  evict(id: string, expectedVersion: number, keepUntil: number, now: number, known?: EvictionCandidate): boolean {
    const stored = this.orders.get(id);
    if (stored === undefined || versionOf(stored) !== expectedVersion) return false;
    // The caller's copy is of this very version; a packed order is a candidate as it is.
    const order = known?.id === id && known.version === expectedVersion ? known : candidateOfStored(stored);
    this.orders.delete(id);
    this.counted(stored.status, -1);
    this.index.removed(order.customerId);
    this.sweepEvicted(now);
    if (keepUntil > now) {
      this.evicted.set(id, evictedEntry(evictedRecordOf(order, keepUntil)));
    } else {
      this.freeReference(order.customerId, order.reference, id);
    }
    return true;
  }

  page(query: OrderPageQuery): OrderPage {
    if (query.reference === undefined) {
      const { status, referencePrefix } = query;
      const page = this.index.page(
        query,
        (order) =>
          (status === undefined || order.status === status) &&
          (referencePrefix === undefined || order.reference.startsWith(referencePrefix)),
      );
      return { orders: page.items.map(orderOf), nextCursor: page.nextCursor };
    }
    // An exact reference names at most one order per customer: no scan.
    const found: Order[] = [];
    // Only live orders are listed, so only customers with some in the index can hold one.
    const customerIds = query.customerId === undefined ? [...this.index.customerIds()] : [query.customerId];
    for (const customerId of customerIds) {
      const order = this.read(this.idByReference(customerId, query.reference));
      if (order !== undefined) found.push(order);
    }
    const matching = found
      .filter(
        (order) =>
          (query.status === undefined || order.status === query.status) &&
          (query.from === undefined || order.createdAt >= query.from) &&
          (query.to === undefined || order.createdAt <= query.to) &&
          (query.referencePrefix === undefined || order.reference.startsWith(query.referencePrefix)),
      )
      .sort(byCreation(query));
    return { orders: matching.slice(0, query.limit), nextCursor: null };
  }

  /** The scan's pages: the packed orders themselves, none unpacked. */
  candidates(query: CandidatePageQuery): CandidatePage {
    const page = this.index.page(query);
    return { candidates: page.items.map(candidateOfStored), nextCursor: page.nextCursor };
  }

  countByStatus(): Map<number, number> {
    return new Map(this.byStatus);
  }

  list(customerId: string | undefined): Order[] {
    const all = Array.from(this.orders.values(), orderOf);
    return customerId === undefined ? all : all.filter((order) => order.customerId === customerId);
  }

  /** Forgets a customer's orders, evicted-order records, references and idempotency keys. */
  removeCustomer(customerId: string): void {
    for (const [id, order] of this.orders) {
      if (order.customerId !== customerId) continue;
      this.orders.delete(id);
      this.counted(order.status, -1);
    }
    this.index.dropCustomer(customerId);
    for (const [id, kept] of this.evicted.entries()) {
      if (evictedOf(id, kept).customerId === customerId) this.evicted.delete(id);
    }
    const prefix = keyOf(customerId, "");
    for (const composite of this.references.keys()) {
      if (composite.startsWith(prefix)) this.references.delete(composite);
    }
    for (const composite of this.keys.keys()) if (composite.startsWith(prefix)) this.keys.delete(composite);
  }

  clear(): void {
    this.orders.clear();
    this.byStatus.clear();
    this.references.clear();
    this.evicted.clear();
    this.keys.clear();
    this.index.clear();
    this.cold.clear();
  }

  saved(): Pick<MemoryStoreState, "orders" | "idempotencyKeys" | "evictedOrders"> {
    return {
      orders: Array.from(this.orders.values(), orderOf),
      idempotencyKeys: Array.from(this.keys, ([composite, kept]) => recordOf(composite, kept)),
      evictedOrders: Array.from(this.evicted.entries(), ([id, kept]) => evictedOf(id, kept)),
    };
  }

  /** Loads saved orders (in creation order), evicted-order records (in eviction order) and keys (in expiry order). */
  load(state: MemoryStoreState): void {
    for (const order of state.orders) {
      const stored = freezeCopy(order);
      this.keep(stored);
      this.index.add(stored);
      this.takeReference(stored.customerId, stored.reference, stored.id);
    }
    for (const record of state.evictedOrders) {
      this.evicted.set(record.id, evictedEntry(record));
      this.takeReference(record.customerId, record.reference, record.id);
    }
    for (const record of state.idempotencyKeys) this.keys.set(keyOf(record.customerId, record.key), keptKey(record));
  }
}

function placeOrder(
  customers: CustomerBook,
  orders: OrderBook,
  { order, key, now }: Parameters<Store["placeOrder"]>[0],
): PlaceResult {
  // One synchronous stretch, so the whole placement is atomic; each refusal changes nothing.
  // The key's composite is built and looked up once: the key map holds a day of keys.
  const composite = key === undefined ? undefined : keyOf(key.customerId, key.key);
  const previous = composite === undefined ? undefined : orders.liveKey(composite, now);
  if (previous !== undefined) return { kind: "existing", record: previous };
  orders.sweepEvicted(order.createdAt);
  if (orders.referenceTaken(order.customerId, order.reference, order.createdAt)) {
    return { kind: "duplicate_reference" };
  }
  const debited = customers.changeBalance(order.customerId, order.shortcode, order.amountCents, -1);
  if (debited.kind !== "debited") return debited;
  orders.add(order);
  if (composite !== undefined && key !== undefined) orders.bindKey(composite, key);
  return { kind: "placed" };
}

/**
 * A Store kept in memory. `reset()` empties it; `reset(customerId)` removes
 * that customer's orders, idempotency keys and issued tokens but keeps the
 * customer and its wallets.
 *
 * @example
 * const store = createMemoryStore();
 * await store.putCustomer({ id: "cus_1", name: "Shop", tokens: ["t"], apiKey: "k",
 *   wallets: [{ shortcode: null, balanceCents: 10_000, currency: "KES" }] });
 * await store.setWalletBalance("cus_1", null, 7_500); // { shortcode: null, balanceCents: 7_500, currency: "KES" }
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  const customers = new CustomerBook();
  const orders = new OrderBook(memoryStoreSettings(options));
  const clear = (): void => {
    customers.clear();
    orders.clear();
  };

  return {
    exportState: () => ({
      customers: [...customers.customers.values()],
      ...orders.saved(),
      issuedTokens: customers.savedIssuedTokens(),
    }),
    importState(state) {
      clear();
      customers.load(state.customers, state.issuedTokens);
      orders.load(state);
    },

    putCustomer: async (customer) => customers.put(customer),
    getCustomer: async (id) => customers.customers.get(id),
    listCustomers: async () => [...customers.customers.values()],
    findCustomerByToken: async (token) => customers.findByToken(token),
    setWalletBalance: async (customerId, shortcode, cents, currency) =>
      customers.setWalletBalance(customerId, shortcode, cents, currency),
    patchCustomer: async (id, patch) => customers.patch(id, patch),

    placeOrder: async (placement) => placeOrder(customers, orders, placement),
    async updateOrderIf(order, expectedVersion, refund) {
      if (!orders.replaceIf(order, expectedVersion)) return false;
      if (refund === true) customers.changeBalance(order.customerId, order.shortcode, order.amountCents, 1);
      return true;
    },
    getOrder: async (id) => orders.read(id),
    getOrderByReference: async (customerId, reference) => orders.read(orders.idByReference(customerId, reference)),
    listOrderPage: async (query) => orders.page(query),
    listEvictionCandidates: async (query) => orders.candidates(query),
    countOrders: async () => orders.orders.size,
    countOrdersByStatus: async () => orders.countByStatus(),
    evictOrder: async (id, expectedVersion, keepUntil, now, known) =>
      orders.evict(id, expectedVersion, keepUntil, now, known),
    getEvictedOrder: async (id, now) => orders.keptEvicted(id, now),
    getEvictedOrderByReference: async (customerId, reference, now) =>
      orders.keptEvicted(orders.idByReference(customerId, reference), now),
    async countEvictedOrders(now) {
      orders.sweepEvicted(now, true);
      return orders.evicted.size;
    },
    listOrders: async (filter) => orders.list(filter?.customerId),

    putIssuedToken: async (token) => customers.putIssuedToken(token),
    countIssuedTokens: async () => customers.issuedCount,
    findCustomerByIssuedToken: async (token, now) => customers.findByIssuedToken(token, now),

    async reset(customerId) {
      if (customerId === undefined) return clear();
      orders.removeCustomer(customerId);
      customers.forgetIssuedTokens(customerId);
    },
  };
}
