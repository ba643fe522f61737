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
 * The maps sit in three groups beside this file, each with the functions
 * that keep it: customers, wallets and tokens (`memory-customers.ts`),
 * orders with their references, evicted records and packing
 * (`memory-orders.ts`), and idempotency keys (`memory-keys.ts`). This file
 * holds what spans them: the placement, the refund, saving and loading.
 */
import type { Customer, EvictedOrder, IdempotencyRecord, Order } from "../domain/model.ts";
import type { PlaceResult, Store } from "../domain/ports.ts";
import { DEFAULT_HOT_RECORDS } from "./cold-queue.ts";
import { expiryOf, keyOf, recordOf } from "./kept-key.ts";
import {
  changeBalance,
  clearCustomers,
  createCustomerTables,
  type CustomerTables,
  findCustomerByIssuedToken,
  findCustomerByToken,
  forgetIssuedTokens,
  loadCustomers,
  patchCustomer,
  putCustomer,
  putIssuedToken,
  savedIssuedTokens,
  type SavedIssuedToken,
  setWalletBalance,
} from "./memory-customers.ts";
import {
  bindKey,
  createKeyTable,
  forgetCustomerKeys,
  type KeyTable,
  loadKeys,
  savedKeys,
  sweepExpiredKeys,
} from "./memory-keys.ts";
import {
  addOrder,
  clearOrders,
  countOrdersByStatus,
  createOrderTables,
  evictOrder,
  idByReference,
  keptEvicted,
  listEvictionCandidates,
  listOrderPage,
  listOrders,
  loadOrders,
  type OrderTables,
  readOrder,
  referenceTaken,
  savedEvicted,
  removeCustomerOrders,
  replaceOrderIf,
  sweepEvicted,
} from "./memory-orders.ts";
import { orderOf } from "./packed-order.ts";

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

/** The store's three groups of tables; an operation that spans groups takes all of them. */
interface MemoryTables {
  readonly customers: CustomerTables;
  readonly orders: OrderTables;
  readonly keys: KeyTable;
}

function placeOrder(tables: MemoryTables, { order, key, now }: Parameters<Store["placeOrder"]>[0]): PlaceResult {
  // One synchronous stretch, so the whole placement is atomic; each refusal changes nothing.
  // The key's composite is built and looked up once: the key map holds a day of keys.
  if (key !== undefined) sweepExpiredKeys(tables.keys, now);
  const composite = key === undefined ? undefined : keyOf(key.customerId, key.key);
  const previous = composite === undefined ? undefined : tables.keys.keys.get(composite);
  if (previous !== undefined && expiryOf(previous) > now && composite !== undefined) {
    return { kind: "existing", record: recordOf(composite, previous) };
  }
  sweepEvicted(tables.orders, order.createdAt);
  if (referenceTaken(tables.orders, order.customerId, order.reference, order.createdAt)) {
    return { kind: "duplicate_reference" };
  }
  const debited = changeBalance(tables.customers, order.customerId, order.shortcode, order.amountCents, -1);
  if (debited.kind !== "debited") return debited;
  addOrder(tables.orders, order);
  if (composite !== undefined && key !== undefined) bindKey(tables.keys, composite, key);
  return { kind: "placed" };
}

function updateOrderIf(tables: MemoryTables, order: Order, expectedVersion: number, refund: boolean | undefined) {
  if (!replaceOrderIf(tables.orders, order, expectedVersion)) return false;
  if (refund === true) changeBalance(tables.customers, order.customerId, order.shortcode, order.amountCents, 1);
  return true;
}

function exportState(tables: MemoryTables): MemoryStoreState {
  return {
    customers: [...tables.customers.customers.values()],
    orders: Array.from(tables.orders.orders.values(), orderOf),
    idempotencyKeys: savedKeys(tables.keys),
    evictedOrders: savedEvicted(tables.orders),
    issuedTokens: savedIssuedTokens(tables.customers),
  };
}

function clear(tables: MemoryTables): void {
  clearCustomers(tables.customers);
  clearOrders(tables.orders);
  tables.keys.keys.clear();
}

function importState(tables: MemoryTables, state: MemoryStoreState): void {
  clear(tables);
  loadCustomers(tables.customers, state.customers, state.issuedTokens);
  loadOrders(tables.orders, state.orders, state.evictedOrders);
  loadKeys(tables.keys, state.idempotencyKeys);
}

/** Removes a customer's orders, idempotency keys and issued tokens, keeping the customer and its wallets. */
function removeCustomerData(tables: MemoryTables, customerId: string): void {
  removeCustomerOrders(tables.orders, customerId);
  forgetCustomerKeys(tables.keys, customerId);
  forgetIssuedTokens(tables.customers, customerId);
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
  const packing = { hot: options.hotOrders ?? DEFAULT_HOT_RECORDS, background: options.packInBackground ?? true };
  const customers = createCustomerTables();
  const orders = createOrderTables(options.settled ?? (() => false), packing);
  const tables: MemoryTables = { customers, orders, keys: createKeyTable() };

  return {
    exportState: () => exportState(tables),
    importState: (state) => importState(tables, state),

    putCustomer: async (customer) => putCustomer(customers, customer),
    getCustomer: async (id) => customers.customers.get(id),
    listCustomers: async () => [...customers.customers.values()],
    findCustomerByToken: async (token) => findCustomerByToken(customers, token),
    setWalletBalance: async (customerId, shortcode, cents, currency) =>
      setWalletBalance(customers, customerId, shortcode, cents, currency),
    patchCustomer: async (id, patch) => patchCustomer(customers, id, patch),

    placeOrder: async (placement) => placeOrder(tables, placement),
    updateOrderIf: async (order, expectedVersion, refund) => updateOrderIf(tables, order, expectedVersion, refund),
    getOrder: async (id) => readOrder(orders, id),
    getOrderByReference: async (customerId, reference) =>
      readOrder(orders, idByReference(orders, customerId, reference)),
    listOrderPage: async (query) => listOrderPage(orders, query),
    listEvictionCandidates: async (query) => listEvictionCandidates(orders, query),
    countOrders: async () => orders.orders.size,
    countOrdersByStatus: async () => countOrdersByStatus(orders),
    evictOrder: async (id, expectedVersion, keepUntil, now, known) =>
      evictOrder(orders, id, expectedVersion, keepUntil, now, known),
    getEvictedOrder: async (id, now) => keptEvicted(orders, id, now),
    getEvictedOrderByReference: async (customerId, reference, now) =>
      keptEvicted(orders, idByReference(orders, customerId, reference), now),
    async countEvictedOrders(now) {
      sweepEvicted(orders, now, true);
      return orders.evicted.size;
    },
    listOrders: async (filter) => listOrders(orders, filter?.customerId),

    putIssuedToken: async (token) => putIssuedToken(customers, token),
    countIssuedTokens: async () => customers.issued.size,
    findCustomerByIssuedToken: async (token, now) => findCustomerByIssuedToken(customers, token, now),

    async reset(customerId) {
      if (customerId !== undefined) removeCustomerData(tables, customerId);
      else clear(tables);
    },
  };
}
