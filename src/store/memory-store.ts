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
 */
import * as nodeCrypto from "node:crypto";
import type { Customer, EvictedOrder, IdempotencyRecord, IssuedToken, Order, Wallet } from "../domain/model.ts";
import type { CustomerPatch, DebitResult, Store } from "../domain/ports.ts";
import { evictedRecordOf } from "../domain/order-retention.ts";
import { createColdQueue, DEFAULT_HOT_RECORDS } from "./cold-queue.ts";
import { createCreationIndex } from "./creation-index.ts";
import { freezeCopy } from "./freeze-copy.ts";
import { expiryOf, type KeptKey, keptKey, keyOf, recordOf } from "./kept-key.ts";
import { orderOf, PackedOrder, type StoredOrder, versionOf } from "./packed-order.ts";

interface TokenEntry {
  readonly digest: Buffer;
  readonly customerId: string;
}

interface IssuedEntry extends TokenEntry {
  readonly expiresAt: number;
}

const { createHash, timingSafeEqual } = nodeCrypto;

/** How often, in simulator time, expired keys, tokens and evicted-order records are swept. */
const SWEEP_EVERY_MS = 1_000;

/** SHA-256 in one call where Node has `crypto.hash` (20.12+): half the cost of a Hash object per request. */
const digestOf: (token: string) => Buffer =
  typeof nodeCrypto.hash === "function"
    ? (token) => nodeCrypto.hash("sha256", token, "buffer")
    : (token) => createHash("sha256").update(token, "utf8").digest();

/**
 * Tokens are found by the SHA-256 digest of what the caller sent: the map
 * lookup then depends only on a digest an attacker cannot steer byte by
 * byte, and the final check compares digests with `timingSafeEqual`.
 */
function matchToken<E extends TokenEntry>(index: ReadonlyMap<string, E>, token: string): E | undefined {
  const digest = digestOf(token);
  const entry = index.get(digest.toString("hex"));
  if (entry === undefined || !timingSafeEqual(entry.digest, digest)) return undefined;
  return entry;
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
  readonly issuedTokens: readonly {
    readonly digest: string;
    readonly customerId: string;
    readonly expiresAt: number;
  }[];
}

/** The memory store, with its whole state to save and load. */
export interface MemoryStore extends Store {
  exportState(): MemoryStoreState;
  /** Replaces everything held with `state`. */
  importState(state: MemoryStoreState): void;
}

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
  const settled = options.settled ?? (() => false);
  const customers = new Map<string, Customer>();
  const tokens = new Map<string, TokenEntry>();
  const issued = new Map<string, IssuedEntry>();
  const orders = new Map<string, StoredOrder>();
  /** customerId → reference → order id */
  const references = new Map<string, Map<string, string>>();
  /** `customerId\0key` → record; insertion order is expiry order while retention is constant. */
  const keys = new Map<string, KeptKey>();
  /** id → what an evicted order left; insertion (eviction) order is about expiry order too. */
  const evicted = new Map<string, EvictedOrder>();
  const index = createCreationIndex<StoredOrder>((id) => orders.get(id));
  const hot = options.hotOrders ?? DEFAULT_HOT_RECORDS;
  const cold = createColdQueue({ hot, background: options.packInBackground ?? true }, (id) => {
    const stored = orders.get(id);
    if (stored !== undefined && !(stored instanceof PackedOrder) && settled(stored)) {
      orders.set(id, new PackedOrder(stored));
    }
  });

  /** Keeps a new version of an order, and queues it for packing once it is settled. */
  function keepOrder(order: Order): void {
    orders.set(order.id, order);
    if (settled(order)) cold.settled(order.id);
  }

  function readOrder(id: string | undefined): Order | undefined {
    const stored = id === undefined ? undefined : orders.get(id);
    return stored === undefined ? undefined : orderOf(stored);
  }

  function indexTokens(customer: Customer): void {
    for (const token of customer.tokens) {
      const digest = digestOf(token);
      tokens.set(digest.toString("hex"), { digest, customerId: customer.id });
    }
  }

  function unindexTokens(customer: Customer): void {
    for (const token of customer.tokens) {
      const hex = digestOf(token).toString("hex");
      if (tokens.get(hex)?.customerId === customer.id) tokens.delete(hex);
    }
  }

  /**
   * Replaces one wallet of a stored customer with a new balance (and
   * currency); the caller has checked it exists. Built field by field: this
   * runs for every order, and a spread of a frozen record takes V8's slow
   * cloning path.
   */
  function replaceWallet(customer: Customer, index: number, balanceCents: number, currency: string): Wallet {
    const wallet = customer.wallets[index] as Wallet;
    const frozenWallet: Wallet = Object.freeze({ shortcode: wallet.shortcode, balanceCents, currency });
    const wallets = customer.wallets.slice();
    wallets[index] = frozenWallet;
    customers.set(customer.id, withWallets(customer, Object.freeze(wallets)));
    return frozenWallet;
  }

  function removeCustomerData(customerId: string): void {
    for (const [id, order] of orders) if (order.customerId === customerId) orders.delete(id);
    index.dropCustomer(customerId);
    for (const [id, record] of evicted) if (record.customerId === customerId) evicted.delete(id);
    references.delete(customerId);
    const prefix = `${customerId}\u0000`;
    for (const composite of keys.keys()) if (composite.startsWith(prefix)) keys.delete(composite);
    for (const [hex, entry] of issued) if (entry.customerId === customerId) issued.delete(hex);
  }

  /**
   * A sweep walks its map from the front, and a Map keeps the slots of
   * deleted entries until it rehashes: swept on every call, each sweep would
   * step over tens of thousands of dead slots (about 40 µs per order at 600
   * orders/s). So sweeps run at most once per {@link SWEEP_EVERY_MS} of
   * simulator time; every read checks expiry itself, so a record not yet
   * swept is never answered.
   */
  const sweptAt = { keys: -Infinity, tokens: -Infinity, evicted: -Infinity };
  function sweepDue(what: keyof typeof sweptAt, now: number): boolean {
    if (now - sweptAt[what] < SWEEP_EVERY_MS) return false;
    sweptAt[what] = now;
    return true;
  }

  /** Drops expired keys from the front; stops at the first live one. */
  function sweepExpiredKeys(now: number): void {
    if (!sweepDue("keys", now)) return;
    for (const [composite, kept] of keys) {
      if (expiryOf(kept) > now) return;
      keys.delete(composite);
    }
  }

  /** Drops expired tokens from the front; with one token lifetime, insertion order is expiry order. */
  function sweepExpiredTokens(now: number): void {
    if (!sweepDue("tokens", now)) return;
    for (const [hex, entry] of issued) {
      if (entry.expiresAt > now) return;
      issued.delete(hex);
    }
  }

  /** Forgets an evicted order's reference, unless a newer order has taken it since. */
  function freeReference(customerId: string, reference: string, id: string): void {
    const byReference = references.get(customerId);
    if (byReference?.get(reference) !== id) return;
    byReference.delete(reference);
    if (byReference.size === 0) references.delete(customerId);
  }

  /** Drops evicted-order records whose retention ended, from the front (all of them when `force`d). */
  function sweepEvicted(now: number, force = false): void {
    if (!sweepDue("evicted", now) && !force) return;
    for (const [id, record] of evicted) {
      if (record.keptUntil > now) return;
      evicted.delete(id);
      freeReference(record.customerId, record.reference, id);
    }
  }

  /** Whether an order, or an evicted order still kept, holds the reference; frees it from one whose time is up. */
  function referenceTaken(customerId: string, reference: string, now: number): boolean {
    const id = references.get(customerId)?.get(reference);
    if (id === undefined) return false;
    if (orders.has(id) || keptEvicted(id, now) !== undefined) return true;
    evicted.delete(id);
    freeReference(customerId, reference, id);
    return false;
  }

  function keptEvicted(id: string | undefined, now: number): EvictedOrder | undefined {
    const record = id === undefined ? undefined : evicted.get(id);
    return record !== undefined && record.keptUntil > now ? record : undefined;
  }

  /** Subtracts (`sign` -1, refusing an overdraft) or adds (`sign` 1) `cents`. */
  function changeBalance(customerId: string, shortcode: string | null, cents: number, sign: 1 | -1): DebitResult {
    assertCents(cents);
    const customer = customers.get(customerId);
    const index = customer?.wallets.findIndex((wallet) => wallet.shortcode === shortcode) ?? -1;
    const wallet = customer?.wallets[index];
    if (customer === undefined || wallet === undefined) return { kind: "unknown_wallet" };
    if (sign < 0 && wallet.balanceCents < cents) return { kind: "insufficient", wallet };
    const balance = wallet.balanceCents + sign * cents;
    return { kind: "debited", wallet: replaceWallet(customer, index, balance, wallet.currency) };
  }
  const debit = (customerId: string, shortcode: string | null, cents: number) =>
    changeBalance(customerId, shortcode, cents, -1);
  const credit = (customerId: string, shortcode: string | null, cents: number) =>
    changeBalance(customerId, shortcode, cents, 1);

  /** Keeps an order whose reference the caller has found free. */
  function add(order: Order): void {
    const stored = freezeCopy(order);
    takeReference(stored.customerId, stored.reference, stored.id);
    keepOrder(stored);
    index.add(stored);
  }

  function clear(): void {
    customers.clear();
    tokens.clear();
    issued.clear();
    orders.clear();
    references.clear();
    keys.clear();
    evicted.clear();
    index.clear();
    cold.clear();
  }

  function takeReference(customerId: string, reference: string, id: string): void {
    let byReference = references.get(customerId);
    if (byReference === undefined) {
      byReference = new Map();
      references.set(customerId, byReference);
    }
    byReference.set(reference, id);
  }

  return {
    exportState() {
      return {
        customers: [...customers.values()],
        orders: Array.from(orders.values(), orderOf),
        idempotencyKeys: Array.from(keys, ([composite, kept]) => recordOf(composite, kept)),
        evictedOrders: [...evicted.values()],
        issuedTokens: [...issued.values()].map((entry) => ({
          digest: entry.digest.toString("hex"),
          customerId: entry.customerId,
          expiresAt: entry.expiresAt,
        })),
      };
    },
    importState(state) {
      clear();
      for (const customer of state.customers) {
        const stored = freezeCopy(customer);
        customers.set(stored.id, stored);
        indexTokens(stored);
      }
      for (const order of state.orders) {
        const stored = freezeCopy(order);
        keepOrder(stored);
        index.add(stored);
        takeReference(stored.customerId, stored.reference, stored.id);
      }
      for (const record of state.idempotencyKeys) {
        keys.set(keyOf(record.customerId, record.key), keptKey(record));
      }
      for (const record of state.evictedOrders) {
        evicted.set(record.id, freezeCopy(record));
        takeReference(record.customerId, record.reference, record.id);
      }
      for (const entry of state.issuedTokens) {
        issued.set(entry.digest, { ...entry, digest: Buffer.from(entry.digest, "hex") });
      }
    },

    async putCustomer(customer) {
      const previous = customers.get(customer.id);
      if (previous !== undefined) unindexTokens(previous);
      const stored = freezeCopy(customer);
      customers.set(stored.id, stored);
      indexTokens(stored);
    },
    async getCustomer(id) {
      return customers.get(id);
    },
    async listCustomers() {
      return [...customers.values()];
    },
    async findCustomerByToken(token) {
      const entry = matchToken(tokens, token);
      return entry === undefined ? undefined : customers.get(entry.customerId);
    },

    async setWalletBalance(customerId, shortcode, cents, currency) {
      assertCents(cents);
      const customer = customers.get(customerId);
      if (customer === undefined) return undefined;
      const index = customer.wallets.findIndex((wallet) => wallet.shortcode === shortcode);
      const existing = customer.wallets[index];
      if (existing !== undefined) return replaceWallet(customer, index, cents, currency ?? existing.currency);
      const wallet = Object.freeze({ shortcode, balanceCents: cents, currency: currency ?? "KES" });
      customers.set(customer.id, withWallets(customer, Object.freeze([...customer.wallets, wallet])));
      return wallet;
    },
    async patchCustomer(id, patch: CustomerPatch) {
      const customer = customers.get(id);
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
      unindexTokens(customer);
      const stored = Object.freeze(updated);
      customers.set(id, stored);
      indexTokens(stored);
      return stored;
    },

    async placeOrder({ order, key, now }) {
      // One synchronous stretch, so the whole placement is atomic; each refusal changes nothing.
      // The key's composite is built and looked up once: the key map holds a day of keys.
      if (key !== undefined) sweepExpiredKeys(now);
      const composite = key === undefined ? undefined : keyOf(key.customerId, key.key);
      const previous = composite === undefined ? undefined : keys.get(composite);
      if (previous !== undefined && expiryOf(previous) > now && composite !== undefined) {
        return { kind: "existing", record: recordOf(composite, previous) };
      }
      sweepEvicted(order.createdAt);
      if (referenceTaken(order.customerId, order.reference, order.createdAt)) return { kind: "duplicate_reference" };
      const debited = debit(order.customerId, order.shortcode, order.amountCents);
      if (debited.kind !== "debited") return debited;
      add(order);
      if (composite !== undefined && key !== undefined) {
        // Delete first so a key bound again after it expired moves to the back (keeps expiry order).
        if (previous !== undefined) keys.delete(composite);
        keys.set(composite, keptKey(key));
      }
      return { kind: "placed" };
    },
    async updateOrderIf(order, expectedVersion, refund) {
      const current = orders.get(order.id);
      if (current === undefined || versionOf(current) !== expectedVersion) return false;
      keepOrder(freezeCopy(order, current));
      if (refund === true) credit(order.customerId, order.shortcode, order.amountCents);
      return true;
    },
    async getOrder(id) {
      return readOrder(id);
    },
    async getOrderByReference(customerId, reference) {
      return readOrder(references.get(customerId)?.get(reference));
    },
    async listOrderPage(query) {
      if (query.reference === undefined) {
        const { status, referencePrefix } = query;
        const page = index.page(
          query,
          (order) =>
            (status === undefined || order.status === status) &&
            (referencePrefix === undefined || order.reference.startsWith(referencePrefix)),
        );
        return { orders: page.items.map(orderOf), nextCursor: page.nextCursor };
      }
      // An exact reference names at most one order per customer: no scan.
      const found: Order[] = [];
      const customerIds = query.customerId === undefined ? [...references.keys()] : [query.customerId];
      for (const customerId of customerIds) {
        const order = readOrder(references.get(customerId)?.get(query.reference));
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
        .sort((a, b) => a.createdAt - b.createdAt);
      return { orders: matching.slice(0, query.limit), nextCursor: null };
    },
    async countOrders() {
      return orders.size;
    },
    async evictOrder(id, expectedVersion, keepUntil, now, known) {
      const stored = orders.get(id);
      if (stored === undefined || versionOf(stored) !== expectedVersion) return false;
      // A packed order need not be unpacked again: the caller's copy is of this very version.
      const order = known?.id === id && known.history.length === expectedVersion ? known : orderOf(stored);
      orders.delete(id);
      index.removed(order.customerId);
      sweepEvicted(now);
      if (keepUntil > now) {
        evicted.set(id, Object.freeze(evictedRecordOf(order, keepUntil)));
      } else {
        freeReference(order.customerId, order.reference, id);
      }
      return true;
    },
    async getEvictedOrder(id, now) {
      return keptEvicted(id, now);
    },
    async getEvictedOrderByReference(customerId, reference, now) {
      return keptEvicted(references.get(customerId)?.get(reference), now);
    },
    async countEvictedOrders(now) {
      sweepEvicted(now, true);
      return evicted.size;
    },
    async listOrders(filter) {
      const all = Array.from(orders.values(), orderOf);
      const customerId = filter?.customerId;
      return customerId === undefined ? all : all.filter((order) => order.customerId === customerId);
    },

    async putIssuedToken(token: IssuedToken) {
      sweepExpiredTokens(token.issuedAt);
      const digest = digestOf(token.token);
      issued.set(digest.toString("hex"), { digest, customerId: token.customerId, expiresAt: token.expiresAt });
    },
    async countIssuedTokens() {
      return issued.size;
    },
    async findCustomerByIssuedToken(token, now) {
      const entry = matchToken(issued, token);
      if (entry === undefined) return undefined;
      if (entry.expiresAt <= now) {
        issued.delete(entry.digest.toString("hex"));
        return undefined;
      }
      return customers.get(entry.customerId);
    },

    async reset(customerId) {
      if (customerId !== undefined) removeCustomerData(customerId);
      else clear();
    },
  };
}
